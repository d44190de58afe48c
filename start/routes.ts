/*
| Every route of the service, as portal-api.md's Endpoints index shows them: path,
| method, who may call it (middleware), and which limit applies.
|
| Middleware order on every API route: authentication (app client or PAT), role,
| merchant scope, limits, then body parsing, so that credentials and roles are
| judged before a body is read.
*/
import router from '@adonisjs/core/services/router'
import type { HttpContext } from '@adonisjs/core/http'
import { middleware } from '#start/kernel'
import { throttle } from '#limits/limits'
import { routeIds } from '#validators/rules/route_ids'
import { MERCHANT_API_SCOPE } from '#config/oauth'

const SessionController = () => import('#controllers/session_controller')
const ProfileController = () => import('#controllers/profile_controller')
const HealthController = () => import('#controllers/health_controller')
const MachineClientsController = () => import('#controllers/machine_clients_controller')
const OAuthTokenController = () => import('#controllers/oauth_token_controller')
const MerchantApiController = () => import('#controllers/merchant_api_controller')
const TeamMembersController = () => import('#controllers/team_members_controller')
const TeamInvitationsController = () => import('#controllers/team_invitations_controller')
const PasswordResetController = () => import('#controllers/password_reset_controller')
const CollectionMetricsController = () => import('#controllers/collection_metrics_controller')
const EmailVerificationLinkController = () =>
  import('#controllers/email_verification_link_controller')

/** Audits a throttled public mutation (portal-api.md › Events): no actor, the IP only. */
const auditThrottledPublic = (action: string) => async (ctx: HttpContext) => {
  const { default: AuditLogService } = await import('#services/audit_log_service')
  await AuditLogService.throttled(ctx, action)()
}

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
/** No credentials. `onThrottled` audits a throttled public mutation. */
export const publicStack = (onThrottled?: (ctx: HttpContext) => Promise<void>) => [
  throttle('public', onThrottled),
  middleware.body(),
]
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
      .use(publicStack(auditThrottledPublic('user.password.reset_link')))
    router
      .post('/auth/reset-password/new-password', [PasswordResetController, 'reset'])
      .use(publicStack(auditThrottledPublic('user.password.reset')))

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
    // Limits: machineClientMutation per actor+merchant+operation, credentialConsume per
    // actor+delivery (enforced in the controller so refusals are audited).
    router
      .get('/portal/merchant/machine-clients', [MachineClientsController, 'index'])
      .use([...portalStack(), middleware.privateCache()])
    router
      .post('/portal/merchant/machine-clients', [MachineClientsController, 'store'])
      .use([...adminStack(), middleware.privateCache()])
    router
      .post('/portal/merchant/machine-clients/:client/rotate', [MachineClientsController, 'rotate'])
      .use([...adminStack(), middleware.privateCache()])
    router
      .post('/portal/merchant/machine-clients/:client/revoke', [MachineClientsController, 'revoke'])
      .use([...adminStack(), middleware.privateCache()])
    router
      .post('/portal/merchant/credential-deliveries/:delivery/consume', [
        MachineClientsController,
        'consume',
      ])
      .use(adminStack())

    // portal/team (every response `no-store, private`: member and team-list data)
    router
      .get('/portal/team/members', [TeamMembersController, 'index'])
      .use([middleware.privateCache(), ...portalStack()])
    router
      .patch('/portal/team/members/:member/role', [TeamMembersController, 'updateRole'])
      .use([middleware.privateCache(), ...adminStack()]) // limit teamMutation (role)
    router
      .delete('/portal/team/members/:member', [TeamMembersController, 'destroy'])
      .use([middleware.privateCache(), ...adminStack()]) // limit teamMutation (remove)
    router
      .get('/portal/team/invitations', [TeamInvitationsController, 'index'])
      .use([middleware.privateCache(), ...adminStack()])
    router
      .post('/portal/team/invitations', [TeamInvitationsController, 'store'])
      .use([middleware.privateCache(), ...adminStack()]) // limit invitationMutation
    router
      .post('/portal/team/invitations/accept', [TeamInvitationsController, 'accept'])
      .use([middleware.privateCache(), ...appClientStack()]) // limits invitationAcceptance(+Ip)
    router
      .post('/portal/team/invitations/:invitation/resend', [TeamInvitationsController, 'resend'])
      .use([middleware.privateCache(), ...adminStack()]) // limit invitationMutation
    router
      .delete('/portal/team/invitations/:invitation', [TeamInvitationsController, 'destroy'])
      .use([middleware.privateCache(), ...adminStack()]) // limit invitationMutation

    // portal/collections
    router
      .get('/portal/collections/metrics', [CollectionMetricsController, 'summary'])
      .as('collections.metrics')
      .use(portalStack())
    router
      .get('/portal/collections/charts', [CollectionMetricsController, 'chart'])
      .as('collections.charts')
      .use(portalStack())
  })
  .prefix('/api/v1')

// oauth (outside /api/v1)
// Machine token endpoint: no Portal credentials. Its own limit (oauthToken, per IP) and
// the form body parsing run inside the controller, so that every failure, 429 and
// body errors included, is answered in OAuth form rather than the Portal envelope.
router.post('/oauth/token', [OAuthTokenController, 'issue'])
// Merchant integration API (under /api/v1/merchant-api, machine tokens only): one
// read-only endpoint to verify machine credentials end to end. Kept in this section
// because it belongs to the machine-token flow, not to the Portal.
router
  .get('/api/v1/merchant-api/whoami', [MerchantApiController, 'whoami'])
  .use([middleware.machineAuth({ scope: MERCHANT_API_SCOPE })])

// signed links (outside /api/v1)
router
  // EMAIL_VERIFICATION_PATH of app/services/email_change_service.ts (the mailed link).
  // GET only: `router.get` would also answer HEAD, and a mail scanner's HEAD must not
  // use the link up (HEAD → 405).
  .route(
    '/portal/profile/email/verify/:verification',
    ['GET'],
    [EmailVerificationLinkController, 'verify']
  )
  .where('verification', routeIds.uuid)
  .use(throttle('public', auditThrottledPublic('user.email.verify_link')))
