/*
| Every endpoint declaration (app/http/endpoint.ts), by resource, in the order the
| OpenAPI document lists them (portal-api.md's Endpoints index, then the service's
| own). start/routes.ts registers these and app/openapi/document.ts describes these:
| a declared endpoint cannot be served without its description.
*/
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
import { healthEndpoints } from '#controllers/health_endpoints'
import { oauthTokenEndpoints } from '#controllers/oauth_token_endpoints'
import { merchantApiEndpoints } from '#controllers/merchant_api_endpoints'
import { openapiEndpoints } from '#controllers/openapi_endpoints'
import { merchantLogoFilesEndpoints } from '#controllers/merchant_logo_files_endpoints'

export const ENDPOINTS = {
  session: sessionEndpoints,
  passwordReset: passwordResetEndpoints,
  profile: profileEndpoints,
  emailVerificationLink: emailVerificationLinkEndpoints,
  merchant: merchantEndpoints,
  integrationKeys: integrationKeysEndpoints,
  machineClients: machineClientsEndpoints,
  teamMembers: teamMembersEndpoints,
  teamInvitations: teamInvitationsEndpoints,
  collections: collectionsEndpoints,
  collectionMetrics: collectionMetricsEndpoints,
  health: healthEndpoints,
  oauthToken: oauthTokenEndpoints,
  merchantApi: merchantApiEndpoints,
  openapi: openapiEndpoints,
  merchantLogoFiles: merchantLogoFilesEndpoints,
}
