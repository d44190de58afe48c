import type { HttpContext } from '@adonisjs/core/http'
import type { UserActor } from '#auth/actor'
import type { InputValue } from '#http/endpoint'
import {
  deleteIntegrationKey,
  integrationKeysPresence,
  putIntegrationKey,
} from '#services/merchants/integration_keys'
import type { integrationKeysEndpoints as endpoints } from '#controllers/integration_keys_endpoints'

/** `{keyType}`: the route's matcher admits only the two key types (any other spelling is 404). */
const keyTypeOf = (ctx: HttpContext) =>
  ctx.params.keyType as Parameters<typeof putIntegrationKey>[1]

/**
 * portal-api.md › Integration keys. Every response is `no-store, private` and the
 * mutation limit (5 per minute per actor, merchant, operation and key type) runs
 * before the body is read, both in the route's stack.
 */
export default class IntegrationKeysController {
  /** GET /portal/merchant/integration-keys (Both) */
  async show(_input: undefined, actor: UserActor) {
    return integrationKeysPresence(actor)
  }

  /** PUT /portal/merchant/integration-keys/{keyType} (Admin, strict) */
  async update(
    input: InputValue<typeof endpoints.update>,
    actor: UserActor,
    ctx: HttpContext,
    _prepared: undefined,
    signal: AbortSignal
  ) {
    return putIntegrationKey(actor, keyTypeOf(ctx), input, { signal })
  }

  /** DELETE /portal/merchant/integration-keys/{keyType} (Admin, strict) */
  async destroy(
    input: InputValue<typeof endpoints.destroy>,
    actor: UserActor,
    ctx: HttpContext,
    _prepared: undefined,
    signal: AbortSignal
  ) {
    await deleteIntegrationKey(actor, keyTypeOf(ctx), input, { signal })
  }
}
