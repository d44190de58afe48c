/*
| Every route of the service, in the order of portal-api.md's Endpoints index, then
| the service's own. Each endpoint is declared once, beside its controller
| (app/controllers/<resource>_endpoints.ts, all listed in app/controllers/endpoints.ts):
| method, path, name, the stack of its kind of caller with its limits from the
| contract's Limits table, its input and its response; the OpenAPI document is
| generated from the same declarations (app/openapi/document.ts). `register`
| (start/register_endpoint.ts) adds one to the router, served by the action of the
| same name in the controller given beside it.
*/
import router from '@adonisjs/core/services/router'
import { register } from '#start/register_endpoint'
import { routeIds } from '#validators/rules/route_ids'
import { ENDPOINTS } from '#controllers/endpoints'

// Each controller is loaded on its first request.
const SessionController = () => import('#controllers/session_controller')
const PasswordResetController = () => import('#controllers/password_reset_controller')
const ProfileController = () => import('#controllers/profile_controller')
const EmailVerificationLinkController = () =>
  import('#controllers/email_verification_link_controller')
const MerchantController = () => import('#controllers/merchant_controller')
const MachineClientsController = () => import('#controllers/machine_clients_controller')
const IntegrationKeysController = () => import('#controllers/integration_keys_controller')
const TeamMembersController = () => import('#controllers/team_members_controller')
const TeamInvitationsController = () => import('#controllers/team_invitations_controller')
const CollectionsController = () => import('#controllers/collections_controller')
const CollectionMetricsController = () => import('#controllers/collection_metrics_controller')
const OAuthTokenController = () => import('#controllers/oauth_token_controller')
const HealthController = () => import('#controllers/health_controller')
const MerchantApiController = () => import('#controllers/merchant_api_controller')
const OpenapiController = () => import('#controllers/openapi_controller')
const MerchantLogoFilesController = () => import('#controllers/merchant_logo_files_controller')

// Path IDs (portal-api.md › Endpoints): a malformed id does not match its route (404).
router.where('member', routeIds.numeric)
router.where('client', routeIds.numeric)
router.where('transaction', routeIds.numeric)
router.where('delivery', routeIds.uuid)
router.where('invitation', routeIds.uuid)
router.where('history', routeIds.ulid)
router.where('keyType', routeIds.keyType)

// Login and session
register(ENDPOINTS.session.login, SessionController)
register(ENDPOINTS.session.logout, SessionController)
register(ENDPOINTS.passwordReset.sendLink, PasswordResetController)
register(ENDPOINTS.passwordReset.reset, PasswordResetController)

// Profile
register(ENDPOINTS.profile.show, ProfileController)
register(ENDPOINTS.profile.update, ProfileController)
register(ENDPOINTS.profile.verifyEmail, ProfileController)
register(ENDPOINTS.profile.resendEmail, ProfileController)
register(ENDPOINTS.profile.changePassword, ProfileController)
register(ENDPOINTS.emailVerificationLink.verify, EmailVerificationLinkController)

// Merchant and logo
register(ENDPOINTS.merchant.show, MerchantController)
register(ENDPOINTS.merchant.update, MerchantController)
register(ENDPOINTS.merchant.showLogo, MerchantController)
register(ENDPOINTS.merchant.storeLogo, MerchantController)
register(ENDPOINTS.merchant.destroyLogo, MerchantController)

// Machine clients and credential delivery
register(ENDPOINTS.machineClients.index, MachineClientsController)
register(ENDPOINTS.machineClients.store, MachineClientsController)
register(ENDPOINTS.machineClients.rotate, MachineClientsController)
register(ENDPOINTS.machineClients.revoke, MachineClientsController)
register(ENDPOINTS.machineClients.consume, MachineClientsController)

// Integration keys
register(ENDPOINTS.integrationKeys.show, IntegrationKeysController)
register(ENDPOINTS.integrationKeys.update, IntegrationKeysController)
register(ENDPOINTS.integrationKeys.destroy, IntegrationKeysController)

// Team
register(ENDPOINTS.teamMembers.index, TeamMembersController)
register(ENDPOINTS.teamMembers.updateRole, TeamMembersController)
register(ENDPOINTS.teamMembers.destroy, TeamMembersController)
register(ENDPOINTS.teamInvitations.index, TeamInvitationsController)
register(ENDPOINTS.teamInvitations.store, TeamInvitationsController)
register(ENDPOINTS.teamInvitations.resend, TeamInvitationsController)
register(ENDPOINTS.teamInvitations.destroy, TeamInvitationsController)
register(ENDPOINTS.teamInvitations.accept, TeamInvitationsController)

// Collections
register(ENDPOINTS.collections.index, CollectionsController)
register(ENDPOINTS.collections.show, CollectionsController)
register(ENDPOINTS.collections.history, CollectionsController)
register(ENDPOINTS.collections.historyItem, CollectionsController)
register(ENDPOINTS.collectionMetrics.summary, CollectionMetricsController)
register(ENDPOINTS.collectionMetrics.chart, CollectionMetricsController)

// Machine token endpoint
register(ENDPOINTS.oauthToken.issue, OAuthTokenController)

// The service's own (decisions.md §6): health, the merchant integration API, this
// document and its reference page, the logo files of the fs disk
register(ENDPOINTS.health.live, HealthController)
register(ENDPOINTS.health.ready, HealthController)
register(ENDPOINTS.merchantApi.whoami, MerchantApiController)
register(ENDPOINTS.openapi.document, OpenapiController)
register(ENDPOINTS.openapi.page, OpenapiController)
register(ENDPOINTS.openapi.asset, OpenapiController)
register(ENDPOINTS.merchantLogoFiles.show, MerchantLogoFilesController)
