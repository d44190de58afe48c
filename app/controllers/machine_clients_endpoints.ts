/* portal-api.md › Machine clients and credential delivery: the endpoints of MachineClientsController. */
import {
  consumeDeliveryInput,
  issueMachineClientInput,
  listMachineClientsInput,
  revokeMachineClientInput,
  rotateMachineClientInput,
} from '#validators/machine_clients'
import { PAGINATION_DESCRIPTIONS, ref } from '#openapi/components'
import MachineClientTransformer, {
  CredentialTransformer,
  IssuedMachineClientTransformer,
} from '#transformers/machine_client_transformer'
import { findManagedClient } from '#services/machine_clients/managed_clients'
import { findConsumableDelivery } from '#services/machine_clients/consume_delivery'
import type { UserActor } from '#auth/actor'
import type { HttpContext } from '@adonisjs/core/http'
import { endpointsOf } from '#http/endpoint'
import { adminStack, portalStack, type EndpointLimit } from '#http/stacks'
import { AuditActions, type AuditAction } from '#services/audit/actions'

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
/** The {client} of the route, once it names a machine client of the merchant (404 before 422). */
async function managedClientId(ctx: HttpContext, actor: UserActor): Promise<string> {
  const id = String(ctx.params.client)
  await findManagedClient(actor.merchantId, id)
  return id
}

const PASSWORD_RULE =
  'A wrong `current_password` is 422 on that field and changes nothing. The mutation and its audit record are written atomically.'

export const machineClientsEndpoints = endpointsOf({
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
    query: { input: listMachineClientsInput, descriptions: PAGINATION_DESCRIPTIONS },
    response: {
      description: 'A page of machine clients.',
      list: {},
      data: ref('MachineClientListItem'),
      transformer: MachineClientTransformer,
      message: 'Success',
    },
  },
  store: {
    method: 'post',
    path: '/api/v1/portal/merchant/machine-clients',
    name: 'merchant.machine_clients.store',
    dropsWorkWhenClientLeaves: true,
    stack: adminStack({
      cache: 'private',
      limits: [mutationLimit('issue', AuditActions.machineClientIssue)],
    }),
    operationId: 'issueMachineClient',
    tag: 'Machine clients',
    summary: 'Issue a machine client',
    description: `Strict body. \`label\` is unique per merchant, revoked clients included. The secret is handed over once through the delivery, which must be consumed within five minutes. ${PASSWORD_RULE}`,
    body: { input: issueMachineClientInput },
    response: {
      status: 201,
      description: 'Issued; consume the delivery within five minutes.',
      data: ref('IssuedMachineClient'),
      transformer: IssuedMachineClientTransformer,
      message:
        'Machine client issued. Consume the credential delivery within five minutes; the secret is shown only once.',
    },
  },
  rotate: {
    method: 'post',
    path: '/api/v1/portal/merchant/machine-clients/:client/rotate',
    name: 'merchant.machine_clients.rotate',
    dropsWorkWhenClientLeaves: true,
    stack: adminStack({
      cache: 'private',
      limits: [mutationLimit('rotate', AuditActions.machineClientRotate, 'client')],
    }),
    operationId: 'rotateMachineClient',
    tag: 'Machine clients',
    summary: 'Rotate a machine client',
    description: `Strict body. Creates the replacement client (with a new delivery) and gives the prior client a rotation deadline of now plus \`overlap_minutes\`. Framework, personal-access and ecosystem client mappings cannot be rotated (404). A client that already has a deadline, or is unavailable, is 409 \`CONFLICT\` and no replacement is created. ${PASSWORD_RULE}`,
    resolve: managedClientId,
    body: { input: rotateMachineClientInput },
    response: {
      status: 201,
      description: 'The replacement client and its delivery.',
      data: ref('IssuedMachineClient'),
      transformer: IssuedMachineClientTransformer,
      message:
        'Machine client rotated. Consume the new credential delivery within five minutes; the secret is shown only once.',
    },
    errors: ['CONFLICT'],
  },
  revoke: {
    method: 'post',
    path: '/api/v1/portal/merchant/machine-clients/:client/revoke',
    name: 'merchant.machine_clients.revoke',
    dropsWorkWhenClientLeaves: true,
    stack: adminStack({
      cache: 'private',
      limits: [mutationLimit('revoke', AuditActions.machineClientRevoke, 'client')],
    }),
    operationId: 'revokeMachineClient',
    tag: 'Machine clients',
    summary: 'Revoke a machine client and its tokens',
    description: `Strict JSON body. Revokes the OAuth client and its tokens, deactivates the ownership, clears the deadline and deletes a pending delivery. Already revoked: 409 \`CONFLICT\`. ${PASSWORD_RULE}`,
    resolve: managedClientId,
    body: { input: revokeMachineClientInput },
    response: {
      description: 'The revoked client.',
      data: ref('MachineClient'),
      transformer: MachineClientTransformer,
      message: 'Machine client and its access tokens revoked.',
    },
    errors: ['CONFLICT'],
  },
  consume: {
    method: 'post',
    path: '/api/v1/portal/merchant/credential-deliveries/:delivery/consume',
    name: 'merchant.credential_deliveries.consume',
    dropsWorkWhenClientLeaves: true,
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
    resolve: (ctx: HttpContext, actor: UserActor) =>
      findConsumableDelivery(actor, String(ctx.params.delivery)),
    body: { input: consumeDeliveryInput },
    response: {
      description: 'The credential (exactly four fields).',
      data: ref('Credential'),
      transformer: CredentialTransformer,
      message: 'Credential delivered. Store the secret now; it cannot be shown again.',
    },
    errors: ['GONE'],
  },
})
