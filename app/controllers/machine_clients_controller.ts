import type { HttpContext } from '@adonisjs/core/http'
import { pageMeta, respond } from '#http/responses'
import { validateBody, validateQuery } from '#http/request_input'
import { pageOf } from '#validators/rules/pagination'
import {
  consumeDeliveryInput,
  issueMachineClientInput,
  listMachineClientsInput,
  revokeMachineClientInput,
  rotateMachineClientInput,
} from '#validators/machine_clients'
import type { DateTime } from 'luxon'
import { findManagedClient, type IssuedClient } from '#services/machine_clients/managed_clients'
import { listMachineClients } from '#services/machine_clients/list'
import { issueMachineClient } from '#services/machine_clients/issue'
import { rotateMachineClient } from '#services/machine_clients/rotate'
import { revokeMachineClient } from '#services/machine_clients/revoke'
import { consumeDelivery, findConsumableDelivery } from '#services/machine_clients/consume_delivery'
import MachineClientTransformer, {
  IssuedMachineClientTransformer,
} from '#transformers/machine_client_transformer'
import type { Credential } from '#shapes/machine_client'

/** The {client} of the route, once it names a machine client of the merchant (404 before 422). */
async function managedClientId(ctx: HttpContext): Promise<string> {
  const id = String(ctx.params.client)
  await findManagedClient(ctx.actor!.merchantId, id)
  return id
}

/** 201 with the issued client and its credential delivery (issue, rotate). */
function respondIssued(
  ctx: HttpContext,
  message: string,
  issued: IssuedClient & { now: DateTime }
) {
  return respond(ctx, message, IssuedMachineClientTransformer.transform(issued), { status: 201 })
}

/**
 * portal-api.md › Machine clients and credential delivery. Mutations: Admin (403
 * before validation) and the limit are on the route line; then the resource, the strict body, `current_password`, and the service's
 * transaction with its audit record.
 */
export default class MachineClientsController {
  /** GET /portal/merchant/machine-clients (Both) */
  async index(ctx: HttpContext) {
    const input = await validateQuery(ctx, listMachineClientsInput)
    const { page, perPage } = pageOf(input)
    const list = await listMachineClients(ctx.actor!, { page, perPage })
    return respond(ctx, 'Success', MachineClientTransformer.transform(list.items), {
      meta: { ...pageMeta(page, perPage, list.total) },
    })
  }

  /** POST /portal/merchant/machine-clients (Admin) */
  async store(ctx: HttpContext) {
    const input = await validateBody(ctx, issueMachineClientInput)
    return respondIssued(
      ctx,
      'Machine client issued. Consume the credential delivery within five minutes; the secret is shown only once.',
      await issueMachineClient(ctx.actor!, input)
    )
  }

  /** POST /portal/merchant/machine-clients/{client}/rotate (Admin) */
  async rotate(ctx: HttpContext) {
    const id = await managedClientId(ctx)
    const input = await validateBody(ctx, rotateMachineClientInput)
    return respondIssued(
      ctx,
      'Machine client rotated. Consume the new credential delivery within five minutes; the secret is shown only once.',
      await rotateMachineClient(ctx.actor!, id, input)
    )
  }

  /** POST /portal/merchant/machine-clients/{client}/revoke (Admin) */
  async revoke(ctx: HttpContext) {
    const id = await managedClientId(ctx)
    const input = await validateBody(ctx, revokeMachineClientInput)
    const revoked = await revokeMachineClient(ctx.actor!, id, input)
    return respond(
      ctx,
      'Machine client and its access tokens revoked.',
      MachineClientTransformer.transform(revoked)
    )
  }

  /** POST /portal/merchant/credential-deliveries/{delivery}/consume (issuing Admin; headers: its declaration) */
  async consume(ctx: HttpContext) {
    const delivery = await findConsumableDelivery(ctx.actor!, String(ctx.params.delivery))
    const input = await validateBody(ctx, consumeDeliveryInput)
    const credential = await consumeDelivery(ctx.actor!, delivery, input)
    return respond(ctx, 'Credential delivered. Store the secret now; it cannot be shown again.', {
      oauth_client_id: credential.oauth_client_id,
      oauth_client_secret: credential.oauth_client_secret,
      grant_type: credential.grant_type,
      token_url: credential.token_url,
    } satisfies Credential)
  }
}
