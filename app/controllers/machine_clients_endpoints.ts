/* portal-api.md › Machine clients and credential delivery: the endpoints of MachineClientsController. */
import {
  consumeDeliveryInput,
  issueMachineClientInput,
  listMachineClientsInput,
  revokeMachineClientInput,
  rotateMachineClientInput,
} from '#validators/machine_clients'
import { inputJsonSchema, queryParameters } from '#openapi/json_schema'
import { ok, page, PAGINATION_DESCRIPTIONS, ref } from '#openapi/components'
import { adminStack, endpointsOf, portalStack, type EndpointLimit } from '#http/endpoint'
import { AuditActions, type AuditAction } from '#services/audit/actions'

const MachineClientsController = () => import('#controllers/machine_clients_controller')

/** Issue, rotate and revoke: one bucket per actor, merchant and operation. */
const mutationLimit = (
  operation: 'issue' | 'rotate' | 'revoke',
  action: AuditAction,
  targetParam?: 'client'
): EndpointLimit => ({
  name: 'machineClientMutation',
  key: ['user', 'merchant', `op:${operation}`],
  per: `actor, merchant and operation (\`${operation}\`); refusals audited`,
  audit: { action, target: 'merchant_oauth_client', ...(targetParam ? { targetParam } : {}) },
})
const PASSWORD_RULE =
  'A wrong `current_password` is 422 on that field and changes nothing. The mutation and its audit record are written atomically.'

export const machineClientsEndpoints = endpointsOf(MachineClientsController, {
  index: {
    method: 'get',
    path: '/api/v1/portal/merchant/machine-clients',
    name: 'merchant.machine_clients.index',
    stack: portalStack({ cache: 'private' }),
    operationId: 'listMachineClients',
    tag: 'Machine clients',
    summary: 'List machine clients',
    description:
      'Standard pagination, ordered by descending ownership id; other query fields are ignored. Reading removes expired deliveries (system-audited); it does not revoke clients.',
    query: queryParameters(listMachineClientsInput, {}, PAGINATION_DESCRIPTIONS),
    responses: {
      200: {
        description: 'A page of machine clients.',
        schema: page(ref('MachineClientListItem')),
      },
    },
    cacheControl: 'no-store, private',
  },
  store: {
    method: 'post',
    path: '/api/v1/portal/merchant/machine-clients',
    name: 'merchant.machine_clients.store',
    stack: adminStack({
      cache: 'private',
      limits: [mutationLimit('issue', AuditActions.machineClientIssue)],
    }),
    operationId: 'issueMachineClient',
    tag: 'Machine clients',
    summary: 'Issue a machine client',
    description: `Strict body. \`label\` is unique per merchant, revoked clients included. The secret is handed over once through the delivery, which must be consumed within five minutes. ${PASSWORD_RULE}`,
    body: { schema: inputJsonSchema(issueMachineClientInput) },
    responses: {
      201: {
        description: 'Issued; consume the delivery within five minutes.',
        schema: ok(ref('IssuedMachineClient')),
      },
    },
    cacheControl: 'no-store, private',
  },
  rotate: {
    method: 'post',
    path: '/api/v1/portal/merchant/machine-clients/:client/rotate',
    name: 'merchant.machine_clients.rotate',
    stack: adminStack({
      cache: 'private',
      limits: [mutationLimit('rotate', AuditActions.machineClientRotate, 'client')],
    }),
    operationId: 'rotateMachineClient',
    tag: 'Machine clients',
    summary: 'Rotate a machine client',
    description: `Strict body. Creates the replacement client (with a new delivery) and gives the prior client a rotation deadline of now plus \`overlap_minutes\`. Framework, personal-access and ecosystem client mappings cannot be rotated (404). A client that already has a deadline, or is unavailable, is 409 \`CONFLICT\` and no replacement is created. ${PASSWORD_RULE}`,
    body: { schema: inputJsonSchema(rotateMachineClientInput) },
    responses: {
      201: {
        description: 'The replacement client and its delivery.',
        schema: ok(ref('IssuedMachineClient')),
      },
    },
    errors: ['CONFLICT'],
    cacheControl: 'no-store, private',
  },
  revoke: {
    method: 'post',
    path: '/api/v1/portal/merchant/machine-clients/:client/revoke',
    name: 'merchant.machine_clients.revoke',
    stack: adminStack({
      cache: 'private',
      limits: [mutationLimit('revoke', AuditActions.machineClientRevoke, 'client')],
    }),
    operationId: 'revokeMachineClient',
    tag: 'Machine clients',
    summary: 'Revoke a machine client and its tokens',
    description: `Strict JSON body. Revokes the OAuth client and its tokens, deactivates the ownership, clears the deadline and deletes a pending delivery. Already revoked: 409 \`CONFLICT\`. ${PASSWORD_RULE}`,
    body: { schema: inputJsonSchema(revokeMachineClientInput) },
    responses: {
      200: { description: 'The revoked client.', schema: ok(ref('MachineClient')) },
    },
    errors: ['CONFLICT'],
    cacheControl: 'no-store, private',
  },
  consume: {
    method: 'post',
    path: '/api/v1/portal/merchant/credential-deliveries/:delivery/consume',
    name: 'merchant.credential_deliveries.consume',
    stack: adminStack({
      cache: 'credential',
      limits: [
        {
          name: 'credentialConsume',
          key: ['user', 'param:delivery'],
          per: 'actor and delivery; refusals audited',
          audit: {
            action: AuditActions.credentialDeliveryConsume,
            target: 'credential_delivery',
            targetParam: 'delivery',
          },
        },
      ],
    }),
    operationId: 'consumeCredentialDelivery',
    tag: 'Machine clients',
    summary: 'Consume a credential delivery (the secret, once)',
    description: `Strict body; the issuing administrator only. Returns the client secret once; it cannot be fetched again. Unavailable, consumed, expired or client-invalidated: 410 \`GONE\`. A delivery of another actor or merchant: 404. ${PASSWORD_RULE} Failed attempts are audited and keep the delivery.`,
    body: { schema: inputJsonSchema(consumeDeliveryInput) },
    responses: {
      200: {
        description: 'The credential (exactly four fields).',
        schema: ok(ref('Credential')),
        headers: {
          'Cache-Control': {
            description: 'Never stored.',
            schema: { const: 'no-store, private, max-age=0' },
            required: true,
          },
          'Pragma': {
            description: 'HTTP/1.0 caches.',
            schema: { const: 'no-cache' },
            required: true,
          },
          'X-Content-Type-Options': {
            description: 'No sniffing.',
            schema: { const: 'nosniff' },
            required: true,
          },
        },
      },
    },
    errors: ['GONE'],
  },
})
