/*
| Every route of the service, grouped as portal-api.md's Endpoints index groups
| them. Each line shows the whole request path before the controller: who may call
| it (start/route_stacks.ts: authentication, role, API or public limit, body
| parsing, merchant scope), then the route's own limit from the contract's Limits
| table (`middleware.limit`, with its key parts and whether refusals are audited).
| Names (`.as`) are what signed URLs and tests use.
*/
import router from '@adonisjs/core/services/router'
import { middleware } from '#start/kernel'
import { register } from '#start/route_stacks'
import { sessionEndpoints } from '#controllers/session_endpoints'
import { passwordResetEndpoints } from '#controllers/password_reset_endpoints'
import { profileEndpoints } from '#controllers/profile_endpoints'
import { emailVerificationLinkEndpoints } from '#controllers/email_verification_link_endpoints'
import { merchantEndpoints } from '#controllers/merchant_endpoints'
import { integrationKeysEndpoints } from '#controllers/integration_keys_endpoints'
import { machineClientsEndpoints } from '#controllers/machine_clients_endpoints'
import { teamMembersEndpoints } from '#controllers/team_members_endpoints'
import { teamInvitationsEndpoints } from '#controllers/team_invitations_endpoints'
import { collectionsEndpoints } from '#controllers/collections_endpoints'
import { collectionMetricsEndpoints } from '#controllers/collection_metrics_endpoints'
import { routeIds } from '#validators/rules/route_ids'
import { MERCHANT_API_SCOPE } from '#config/oauth'
import { MEDIA_ROUTE_PREFIX } from '#config/drive'

const HealthController = () => import('#controllers/health_controller')
const OAuthTokenController = () => import('#controllers/oauth_token_controller')
const MerchantApiController = () => import('#controllers/merchant_api_controller')
const OpenapiController = () => import('#controllers/openapi_controller')
const MerchantLogoFilesController = () => import('#controllers/merchant_logo_files_controller')

router.where('member', routeIds.numeric)
router.where('client', routeIds.numeric)
router.where('transaction', routeIds.numeric)
router.where('delivery', routeIds.uuid)
router.where('invitation', routeIds.uuid)
router.where('history', routeIds.ulid)
router.where('keyType', routeIds.keyType)

router.get('/health/live', [HealthController, 'live']).as('health.live')
router.get('/health/ready', [HealthController, 'ready']).as('health.ready')

// The OpenAPI document and its reference page (decisions.md §6; docs/openapi.md).
router.get('/openapi.json', [OpenapiController, 'document']).as('openapi.document')
router.get('/docs', [OpenapiController, 'page']).as('openapi.page')
router
  .get('/docs/assets/:asset', [OpenapiController, 'asset'])
  .where('asset', /^[a-z0-9-]+\.(?:js|css|png)$/)
  .as('openapi.asset')

router
  .group(() => {
    // merchant-api: machine tokens only (its API limit, per machine client, is taken
    // by machine authentication once the client is known). One read-only endpoint to
    // verify machine credentials end to end.
    router
      .get('/merchant-api/whoami', [MerchantApiController, 'whoami'])
      .as('merchant_api.whoami')
      .use([middleware.machineAuth({ scope: MERCHANT_API_SCOPE })])
  })
  .prefix('/api/v1')

register(sessionEndpoints.login)
register(sessionEndpoints.logout)
register(passwordResetEndpoints.sendLink)
register(passwordResetEndpoints.reset)
register(profileEndpoints.show)
register(profileEndpoints.update)
register(profileEndpoints.verifyEmail)
register(profileEndpoints.resendEmail)
register(profileEndpoints.changePassword)
register(emailVerificationLinkEndpoints.verify)
register(merchantEndpoints.show)
register(merchantEndpoints.update)
register(merchantEndpoints.showLogo)
register(merchantEndpoints.storeLogo)
register(merchantEndpoints.destroyLogo)
register(integrationKeysEndpoints.show)
register(integrationKeysEndpoints.update)
register(integrationKeysEndpoints.destroy)
register(machineClientsEndpoints.index)
register(machineClientsEndpoints.store)
register(machineClientsEndpoints.rotate)
register(machineClientsEndpoints.revoke)
register(machineClientsEndpoints.consume)
register(teamMembersEndpoints.index)
register(teamMembersEndpoints.updateRole)
register(teamMembersEndpoints.destroy)
register(teamInvitationsEndpoints.index)
register(teamInvitationsEndpoints.store)
register(teamInvitationsEndpoints.resend)
register(teamInvitationsEndpoints.destroy)
register(teamInvitationsEndpoints.accept)
register(collectionsEndpoints.index)
register(collectionsEndpoints.show)
register(collectionsEndpoints.history)
register(collectionsEndpoints.historyItem)
register(collectionMetricsEndpoints.summary)
register(collectionMetricsEndpoints.chart)

// oauth (outside /api/v1): every failure in OAuth form, 429 and body errors included
// (the exception handler knows this route by name).
router
  .post('/oauth/token', [OAuthTokenController, 'issue'])
  .as('oauth.token')
  .use([middleware.limit({ name: 'oauthToken', key: ['ip'] }), middleware.rawBody()])

// media (outside /api/v1): logos of the fs drive disk, public like any <img> source;
// names are unguessable (ULID) and change with every upload.
router
  .get(`${MEDIA_ROUTE_PREFIX}/logos/:merchant/:file`, [MerchantLogoFilesController, 'show'])
  .where('merchant', routeIds.numeric)
  .where('file', { match: /^[0-9a-z]{26}\.(?:png|jpg|webp)$/ })
  .as('media.logo')
  .use(middleware.limit({ name: 'public', key: ['ip'] }))
