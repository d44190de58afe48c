/*
| Every route of the service, in the order of portal-api.md's Endpoints index, then
| the service's own. Each endpoint is declared once, beside its controller
| (app/controllers/<resource>_endpoints.ts, all listed in app/controllers/endpoints.ts):
| method, path, name, the stack of its kind of caller with its limits from the
| contract's Limits table, and its description in the OpenAPI document, which is
| generated from the same declarations (app/openapi/document.ts). `register`
| (start/register_endpoint.ts) adds one to the router.
*/
import router from '@adonisjs/core/services/router'
import { register } from '#start/register_endpoint'
import { routeIds } from '#validators/rules/route_ids'
import { ENDPOINTS } from '#controllers/endpoints'

// Path IDs (portal-api.md › Endpoints): a malformed id does not match its route (404).
router.where('member', routeIds.numeric)
router.where('client', routeIds.numeric)
router.where('transaction', routeIds.numeric)
router.where('delivery', routeIds.uuid)
router.where('invitation', routeIds.uuid)
router.where('history', routeIds.ulid)
router.where('keyType', routeIds.keyType)

// Login and session
register(ENDPOINTS.session.login)
register(ENDPOINTS.session.logout)
register(ENDPOINTS.passwordReset.sendLink)
register(ENDPOINTS.passwordReset.reset)

// Profile
register(ENDPOINTS.profile.show)
register(ENDPOINTS.profile.update)
register(ENDPOINTS.profile.verifyEmail)
register(ENDPOINTS.profile.resendEmail)
register(ENDPOINTS.profile.changePassword)
register(ENDPOINTS.emailVerificationLink.verify)

// Merchant and logo
register(ENDPOINTS.merchant.show)
register(ENDPOINTS.merchant.update)
register(ENDPOINTS.merchant.showLogo)
register(ENDPOINTS.merchant.storeLogo)
register(ENDPOINTS.merchant.destroyLogo)

// Machine clients and credential delivery
register(ENDPOINTS.machineClients.index)
register(ENDPOINTS.machineClients.store)
register(ENDPOINTS.machineClients.rotate)
register(ENDPOINTS.machineClients.revoke)
register(ENDPOINTS.machineClients.consume)

// Integration keys
register(ENDPOINTS.integrationKeys.show)
register(ENDPOINTS.integrationKeys.update)
register(ENDPOINTS.integrationKeys.destroy)

// Team
register(ENDPOINTS.teamMembers.index)
register(ENDPOINTS.teamMembers.updateRole)
register(ENDPOINTS.teamMembers.destroy)
register(ENDPOINTS.teamInvitations.index)
register(ENDPOINTS.teamInvitations.store)
register(ENDPOINTS.teamInvitations.resend)
register(ENDPOINTS.teamInvitations.destroy)
register(ENDPOINTS.teamInvitations.accept)

// Collections
register(ENDPOINTS.collections.index)
register(ENDPOINTS.collections.show)
register(ENDPOINTS.collections.history)
register(ENDPOINTS.collections.historyItem)
register(ENDPOINTS.collectionMetrics.summary)
register(ENDPOINTS.collectionMetrics.chart)

// Machine token endpoint
register(ENDPOINTS.oauthToken.issue)

// The service's own (decisions.md §6): health, the merchant integration API, this
// document and its reference page, the logo files of the fs disk
register(ENDPOINTS.health.live)
register(ENDPOINTS.health.ready)
register(ENDPOINTS.merchantApi.whoami)
register(ENDPOINTS.openapi.document)
register(ENDPOINTS.openapi.page)
register(ENDPOINTS.openapi.asset)
register(ENDPOINTS.merchantLogoFiles.show)
