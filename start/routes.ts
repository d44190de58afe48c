/*
| Every route of the service, in the order of portal-api.md's Endpoints index, then
| the service's own. Each endpoint is declared once, beside its controller
| (app/controllers/<resource>_endpoints.ts): method, path, name, the stack of its
| kind of caller with its limits from the contract's Limits table, and its
| description in the OpenAPI document, which is generated from the same declarations
| (app/openapi/document.ts). `register` (start/register_endpoint.ts) adds one to the router.
*/
import router from '@adonisjs/core/services/router'
import { register } from '#start/register_endpoint'
import { routeIds } from '#validators/rules/route_ids'
import { sessionEndpoints as session } from '#controllers/session_endpoints'
import { passwordResetEndpoints as passwordReset } from '#controllers/password_reset_endpoints'
import { profileEndpoints as profile } from '#controllers/profile_endpoints'
import { emailVerificationLinkEndpoints as emailLink } from '#controllers/email_verification_link_endpoints'
import { merchantEndpoints as merchant } from '#controllers/merchant_endpoints'
import { machineClientsEndpoints as machineClients } from '#controllers/machine_clients_endpoints'
import { integrationKeysEndpoints as integrationKeys } from '#controllers/integration_keys_endpoints'
import { teamMembersEndpoints as members } from '#controllers/team_members_endpoints'
import { teamInvitationsEndpoints as invitations } from '#controllers/team_invitations_endpoints'
import { collectionsEndpoints as collections } from '#controllers/collections_endpoints'
import { collectionMetricsEndpoints as metrics } from '#controllers/collection_metrics_endpoints'
import { oauthTokenEndpoints as oauthToken } from '#controllers/oauth_token_endpoints'
import { healthEndpoints as health } from '#controllers/health_endpoints'
import { merchantApiEndpoints as merchantApi } from '#controllers/merchant_api_endpoints'
import { openapiEndpoints as openapi } from '#controllers/openapi_endpoints'
import { merchantLogoFilesEndpoints as logoFiles } from '#controllers/merchant_logo_files_endpoints'

// Path IDs (portal-api.md › Endpoints): a malformed id does not match its route (404).
router.where('member', routeIds.numeric)
router.where('client', routeIds.numeric)
router.where('transaction', routeIds.numeric)
router.where('delivery', routeIds.uuid)
router.where('invitation', routeIds.uuid)
router.where('history', routeIds.ulid)
router.where('keyType', routeIds.keyType)

// Login and session
register(session.login)
register(session.logout)
register(passwordReset.sendLink)
register(passwordReset.reset)

// Profile
register(profile.show)
register(profile.update)
register(profile.verifyEmail)
register(profile.resendEmail)
register(profile.changePassword)
register(emailLink.verify)

// Merchant and logo
register(merchant.show)
register(merchant.update)
register(merchant.showLogo)
register(merchant.storeLogo)
register(merchant.destroyLogo)

// Machine clients and credential delivery
register(machineClients.index)
register(machineClients.store)
register(machineClients.rotate)
register(machineClients.revoke)
register(machineClients.consume)

// Integration keys
register(integrationKeys.show)
register(integrationKeys.update)
register(integrationKeys.destroy)

// Team
register(members.index)
register(members.updateRole)
register(members.destroy)
register(invitations.index)
register(invitations.store)
register(invitations.resend)
register(invitations.destroy)
register(invitations.accept)

// Collections
register(collections.index)
register(collections.show)
register(collections.history)
register(collections.historyItem)
register(metrics.summary)
register(metrics.chart)

// Machine token endpoint
register(oauthToken.issue)

// The service's own (decisions.md §6): health, the merchant integration API, this
// document and its reference page, the logo files of the fs disk
register(health.live)
register(health.ready)
register(merchantApi.whoami)
register(openapi.document)
register(openapi.page)
register(openapi.asset)
register(logoFiles.show)
