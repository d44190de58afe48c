import router from '@adonisjs/core/services/router'

router.get('/health/live', () => ({ status: 'ok' }))
