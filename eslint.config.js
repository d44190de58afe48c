import { configApp } from '@adonisjs/eslint-config'

// tmp/ holds what runs leave behind (embedded clusters, the typed client the client
// command test generates): not source, so a lint after `npm test` lints the same tree.
export default configApp({ ignores: ['tmp/**'] })
