/*
| portal-api.md › Integration keys: the endpoints of IntegrationKeysController.
| Request bodies are the validators the routes validate with
| (app/validators/merchant.ts), the 10-500 `reason` included.
*/
import {
  INTEGRATION_KEY_MAX_LENGTH,
  integrationKeyDeleteInput,
  integrationKeyPutInput,
} from '#validators/merchant'
import { ref } from '#openapi/components'
import { IntegrationKeysTransformer } from '#transformers/merchant_transformer'
import { endpointsOf } from '#http/endpoint'
import { adminStack, portalStack, type EndpointLimit } from '#http/stacks'
import { AuditActions, type AuditAction } from '#services/audit/actions'

/** PUT and DELETE: one bucket per actor, merchant, operation and key type. */
const keyLimit = (operation: 'put' | 'delete', action: AuditAction): EndpointLimit => ({
  name: 'integrationKeyMutation',
  key: ['user', 'merchant', `op:${operation}`, 'param:keyType'],
  per: `actor, merchant, operation (\`${operation}\`) and key type; refusals audited`,
  audit: { action, target: 'integration_key', targetParam: 'keyType' },
})

const PASSWORD_RULE =
  'A wrong `current_password` is 422 on that field and changes nothing (the refusal is audited). The change and its audit record are written atomically.'

export const integrationKeysEndpoints = endpointsOf({
  show: {
    method: 'get',
    path: '/api/v1/portal/merchant/integration-keys',
    name: 'merchant.integration_keys.show',
    stack: portalStack({ cache: 'private' }),
    operationId: 'getIntegrationKeys',
    tag: 'Integration keys',
    summary: 'Read integration key presence',
    description:
      'Presence only; values are never readable. Without an integration record both flags are false and `updated_at` is null (no record is created). Every response of the integration key routes, errors included, is `Cache-Control: no-store, private`.',
    response: {
      description: 'Presence metadata.',
      data: ref('IntegrationKeysPresence'),
      transformer: IntegrationKeysTransformer,
      message: 'Success',
    },
  },
  update: {
    method: 'put',
    path: '/api/v1/portal/merchant/integration-keys/:keyType',
    name: 'merchant.integration_keys.update',
    dropsWorkWhenClientLeaves: true,
    stack: adminStack({
      cache: 'private',
      limits: [keyLimit('put', AuditActions.integrationKeyPut)],
    }),
    operationId: 'putIntegrationKey',
    tag: 'Integration keys',
    summary: 'Set an integration key',
    description: `Strict body. \`value\` is kept exactly as sent (never trimmed), nonempty and not whitespace-only, at most ${INTEGRATION_KEY_MAX_LENGTH.toLocaleString('en-US')} characters; it never appears in a response, log or audit record. \`secret_key\` signs payment notifications (queued notifications may still use an earlier key); \`authentication_token\` maps to a legacy asset and is not an API bearer token. OAuth clients and PATs stay active. ${PASSWORD_RULE} An unsupported key type is 404.`,
    body: { input: integrationKeyPutInput },
    response: {
      description: 'Presence metadata after the change.',
      data: ref('IntegrationKeysPresence'),
      transformer: IntegrationKeysTransformer,
      message: 'Integration key updated.',
    },
  },
  destroy: {
    method: 'delete',
    path: '/api/v1/portal/merchant/integration-keys/:keyType',
    name: 'merchant.integration_keys.destroy',
    dropsWorkWhenClientLeaves: true,
    stack: adminStack({
      cache: 'private',
      limits: [keyLimit('delete', AuditActions.integrationKeyDelete)],
    }),
    operationId: 'deleteIntegrationKey',
    tag: 'Integration keys',
    summary: 'Remove an integration key',
    description: `Strict JSON body (\`value\` is not accepted). Idempotent even if the key or the integration is absent (nothing is created); the other key, logo, webhook URLs and x_token are preserved. Removal without a fallback can interrupt future notifications. ${PASSWORD_RULE} An unsupported key type is 404.`,
    body: { input: integrationKeyDeleteInput },
    response: { status: 204, description: 'Removed (empty body).' },
  },
})
