/* portal-api.md › Machine clients and credential delivery. */
import {
  consumeDeliveryInput,
  issueMachineClientInput,
  listMachineClientsInput,
  revokeMachineClientInput,
  rotateMachineClientInput,
} from '#validators/machine_clients'
import { inputJsonSchema, queryParameters, schema } from '#openapi/json_schema'
import { ok, page } from '#openapi/components'
import type { OperationSpec } from '#openapi/operation'
import { PAGINATION_DESCRIPTIONS } from '#openapi/paths/shared'

const { ref } = schema
const mutationLimit = (operation: string) => [
  { name: 'api' as const, per: 'user' },
  {
    name: 'machineClientMutation' as const,
    per: `actor, merchant and operation (\`${operation}\`); refusals audited`,
  },
]
const PASSWORD_RULE =
  'A wrong `current_password` is 422 on that field and changes nothing. The mutation and its audit record are written atomically.'

export const machineClientOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/v1/portal/merchant/machine-clients',
    operationId: 'listMachineClients',
    tag: 'Machine clients',
    summary: 'List machine clients',
    description:
      'Standard pagination, ordered by descending ownership id; other query fields are ignored. Reading removes expired deliveries (system-audited); it does not revoke clients.',
    access: 'pat',
    limits: [{ name: 'api', per: 'user' }],
    query: queryParameters(listMachineClientsInput, {}, PAGINATION_DESCRIPTIONS),
    responses: {
      200: {
        description: 'A page of machine clients.',
        schema: page(ref('MachineClientListItem')),
      },
    },
    cacheControl: 'no-store, private',
  },
  {
    method: 'post',
    path: '/api/v1/portal/merchant/machine-clients',
    operationId: 'issueMachineClient',
    tag: 'Machine clients',
    summary: 'Issue a machine client',
    description: `Strict body. \`label\` is unique per merchant, revoked clients included. The secret is handed over once through the delivery, which must be consumed within five minutes. ${PASSWORD_RULE}`,
    access: 'admin',
    limits: mutationLimit('issue'),
    body: { schema: inputJsonSchema(issueMachineClientInput) },
    responses: {
      201: {
        description: 'Issued; consume the delivery within five minutes.',
        schema: ok(ref('IssuedMachineClient')),
      },
    },
    cacheControl: 'no-store, private',
  },
  {
    method: 'post',
    path: '/api/v1/portal/merchant/machine-clients/{client}/rotate',
    operationId: 'rotateMachineClient',
    tag: 'Machine clients',
    summary: 'Rotate a machine client',
    description: `Strict body. Creates the replacement client (with a new delivery) and gives the prior client a rotation deadline of now plus \`overlap_minutes\`. Framework, personal-access and ecosystem client mappings cannot be rotated (404). A client that already has a deadline, or is unavailable, is 409 \`CONFLICT\` and no replacement is created. ${PASSWORD_RULE}`,
    access: 'admin',
    limits: mutationLimit('rotate'),
    pathParameters: ['client'],
    body: { schema: inputJsonSchema(rotateMachineClientInput) },
    responses: {
      201: {
        description: 'The replacement client and its delivery.',
        schema: ok(ref('IssuedMachineClient')),
      },
    },
    errors: { 409: ['CONFLICT'] },
    cacheControl: 'no-store, private',
  },
  {
    method: 'post',
    path: '/api/v1/portal/merchant/machine-clients/{client}/revoke',
    operationId: 'revokeMachineClient',
    tag: 'Machine clients',
    summary: 'Revoke a machine client and its tokens',
    description: `Strict JSON body. Revokes the OAuth client and its tokens, deactivates the ownership, clears the deadline and deletes a pending delivery. Already revoked: 409 \`CONFLICT\`. ${PASSWORD_RULE}`,
    access: 'admin',
    limits: mutationLimit('revoke'),
    pathParameters: ['client'],
    body: { schema: inputJsonSchema(revokeMachineClientInput) },
    responses: {
      200: { description: 'The revoked client.', schema: ok(ref('MachineClient')) },
    },
    errors: { 409: ['CONFLICT'] },
    cacheControl: 'no-store, private',
  },
  {
    method: 'post',
    path: '/api/v1/portal/merchant/credential-deliveries/{delivery}/consume',
    operationId: 'consumeCredentialDelivery',
    tag: 'Machine clients',
    summary: 'Consume a credential delivery (the secret, once)',
    description: `Strict body; the issuing administrator only. Returns the client secret once; it cannot be fetched again. Unavailable, consumed, expired or client-invalidated: 410 \`GONE\`. A delivery of another actor or merchant: 404. ${PASSWORD_RULE} Failed attempts are audited and keep the delivery.`,
    access: 'admin',
    limits: [
      { name: 'api', per: 'user' },
      { name: 'credentialConsume', per: 'actor and delivery; refusals audited' },
    ],
    pathParameters: ['delivery'],
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
    errors: { 410: ['GONE'] },
  },
]
