/*
| Every route of the service, as portal-api.md's Endpoints index shows them: path,
| method, who may call it (middleware), and which limit applies.
|
| Middleware order on every API route: authentication (app client or PAT), role,
| merchant scope, limits, then body parsing, so that credentials and roles are
| judged before a body is read.
*/
import router from '@adonisjs/core/services/router'
import { middleware } from '#start/kernel'
import { throttle } from '#start/limiter'
import { routeIds } from '#validators/rules/route_ids'

const SessionController = () => import('#controllers/session_controller')
const ProfileController = () => import('#controllers/profile_controller')
const HealthController = () => import('#controllers/health_controller')
const PasswordResetController = () => import('#controllers/password_reset_controller')
const EmailVerificationLinkController = () =>
  import('#controllers/email_verification_link_controller')

router.where('member', routeIds.numeric)
router.where('client', routeIds.numeric)
router.where('transaction', routeIds.numeric)
router.where('delivery', routeIds.uuid)
router.where('invitation', routeIds.uuid)
router.where('history', routeIds.ulid)
router.where('keyType', routeIds.keyType)

router.get('/health/live', [HealthController, 'live'])
router.get('/health/ready', [HealthController, 'ready'])

/** Portal application credentials (HTTP Basic + X-Service-Application). */
export const appClientStack = () => [middleware.appClient(), throttle('api'), middleware.body()]
/** No credentials. */
export const publicStack = () => [throttle('public'), middleware.body()]
/** Portal user PAT, either role. */
export const portalStack = () => [
  middleware.portalAuth(),
  throttle('api'),
  middleware.body(),
  middleware.merchantScope(),
]
/** Portal user PAT, administrators only (403 FORBIDDEN before validation). */
export const adminStack = () => [
  middleware.portalAuth(),
  middleware.role({ role: 'administrator' }),
  throttle('api'),
  middleware.body(),
  middleware.merchantScope(),
]

router
  .group(() => {
    // auth
    router.post('/auth/login', [SessionController, 'login']).use(appClientStack())
    router.post('/auth/logout', [SessionController, 'logout']).use(portalStack())
    router
      .post('/auth/reset-password/reset-link', [PasswordResetController, 'sendLink'])
      .use(publicStack())
    router
      .post('/auth/reset-password/new-password', [PasswordResetController, 'reset'])
      .use(publicStack())

    // portal/me
    router.get('/portal/me', [ProfileController, 'show']).use(portalStack())
    // limits in the controller (audited when throttled): profileUpdate, otpVerify,
    // emailResend, passwordChange, each per user
    router.patch('/portal/me', [ProfileController, 'update']).use(portalStack())
    router.post('/portal/me/email/verify', [ProfileController, 'verifyEmail']).use(portalStack())
    router.post('/portal/me/email/resend', [ProfileController, 'resendEmail']).use(portalStack())
    router.put('/portal/me/password', [ProfileController, 'changePassword']).use(portalStack())

    // portal/merchant

    // portal/merchant/machine-clients and credential deliveries

    // portal/team

    // portal/collections
  })
  .prefix('/api/v1')

// oauth (outside /api/v1)

// signed links (outside /api/v1)
router
  // EMAIL_VERIFICATION_PATH of app/services/email_change_service.ts (the mailed link)
  .get('/portal/profile/email/verify/:verification', [EmailVerificationLinkController, 'verify'])
  .where('verification', routeIds.uuid)
  .use(throttle('public'))
