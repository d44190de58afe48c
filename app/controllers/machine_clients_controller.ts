import type { HttpContext } from '@adonisjs/core/http'
import { pageMeta, respond } from '#http/responses'
import { validateBody, validateQuery } from '#validators/rules/input'
import { pageOf } from '#validators/rules/pagination'
import {
  consumeDeliveryInput,
  issueMachineClientInput,
  listMachineClientsInput,
  revokeMachineClientInput,
  rotateMachineClientInput,
} from '#validators/machine_clients'
import MachineClientService from '#services/machine_clients/machine_clients'
import MachineClientTransformer, {
  IssuedMachineClientTransformer,
} from '#transformers/machine_client_transformer'

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
    const { user, merchant, role } = ctx.portal!
    const list = await MachineClientService.list(
      { user, merchant, role },
      page,
      perPage,
      ctx.actor!
    )
    return respond(ctx, 'Success', MachineClientTransformer.transform(list.items), {
      meta: { ...pageMeta(page, perPage, list.total) },
    })
  }

  /** POST /portal/merchant/machine-clients (Admin) */
  async store(ctx: HttpContext) {
    const { user, merchant } = ctx.portal!
    const input = await validateBody(ctx, issueMachineClientInput)
    const issued = await MachineClientService.issue({ user, merchant }, input, ctx.actor!)
    return respond(
      ctx,
      'Machine client issued. Consume the credential delivery within five minutes; the secret is shown only once.',
      IssuedMachineClientTransformer.transform(issued),
      { status: 201 }
    )
  }

  /** POST /portal/merchant/machine-clients/{client}/rotate (Admin) */
  async rotate(ctx: HttpContext) {
    const { user, merchant } = ctx.portal!
    const id = String(ctx.params.client)
    await MachineClientService.findManaged(merchant, id)
    const input = await validateBody(ctx, rotateMachineClientInput)
    const issued = await MachineClientService.rotate({ user, merchant }, id, input, ctx.actor!)
    return respond(
      ctx,
      'Machine client rotated. Consume the new credential delivery within five minutes; the secret is shown only once.',
      IssuedMachineClientTransformer.transform(issued),
      { status: 201 }
    )
  }

  /** POST /portal/merchant/machine-clients/{client}/revoke (Admin) */
  async revoke(ctx: HttpContext) {
    const { user, merchant } = ctx.portal!
    const id = String(ctx.params.client)
    await MachineClientService.findManaged(merchant, id)
    const input = await validateBody(ctx, revokeMachineClientInput)
    const revoked = await MachineClientService.revoke({ user, merchant }, id, input, ctx.actor!)
    return respond(
      ctx,
      'Machine client and its access tokens revoked.',
      MachineClientTransformer.transform(revoked)
    )
  }

  /** POST /portal/merchant/credential-deliveries/{delivery}/consume (issuing Admin) */
  async consume(ctx: HttpContext) {
    ctx.response.header('Cache-Control', 'no-store, private, max-age=0')
    ctx.response.header('Pragma', 'no-cache')
    ctx.response.header('X-Content-Type-Options', 'nosniff')
    const { user, merchant } = ctx.portal!
    const delivery = await MachineClientService.findConsumable(
      { user, merchant },
      String(ctx.params.delivery),
      ctx.actor!
    )
    const input = await validateBody(ctx, consumeDeliveryInput)
    const credential = await MachineClientService.consume(
      { user, merchant },
      delivery,
      input.current_password,
      ctx.actor!
    )
    return respond(ctx, 'Credential delivered. Store the secret now; it cannot be shown again.', {
      oauth_client_id: credential.oauth_client_id,
      oauth_client_secret: credential.oauth_client_secret,
      grant_type: credential.grant_type,
      token_url: credential.token_url,
    })
  }
}
