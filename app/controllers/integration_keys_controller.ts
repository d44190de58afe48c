import type { HttpContext } from '@adonisjs/core/http'
import { noContent, respond } from '#http/responses'
import { validateBody } from '#http/request_input'
import {
  integrationKeyDeleteInput,
  integrationKeyPutInput,
  type IntegrationKeyType,
} from '#validators/merchant'
import { IntegrationKeysTransformer } from '#transformers/merchant_transformer'
import {
  deleteIntegrationKey,
  integrationKeysPresence,
  putIntegrationKey,
} from '#services/merchants/integration_keys'

/**
 * portal-api.md › Integration keys. Every response is `no-store, private` and the
 * mutation limit (5 per minute per actor, merchant, operation and key type) runs
 * before the body is read, both on the route line. `{keyType}` is constrained by the
 * route: any other spelling is a 404.
 */
export default class IntegrationKeysController {
  /** GET /portal/merchant/integration-keys (Both) */
  async show(ctx: HttpContext) {
    const presence = await integrationKeysPresence(ctx.actor!)
    return respond(ctx, 'Success', IntegrationKeysTransformer.transform(presence))
  }

  /** PUT /portal/merchant/integration-keys/{keyType} (Admin, strict) */
  async update(ctx: HttpContext) {
    const input = await validateBody(ctx, integrationKeyPutInput)
    const keyType = ctx.params.keyType as IntegrationKeyType
    const presence = await putIntegrationKey(ctx.actor!, keyType, input)
    return respond(ctx, 'Integration key updated.', IntegrationKeysTransformer.transform(presence))
  }

  /** DELETE /portal/merchant/integration-keys/{keyType} (Admin, strict) */
  async destroy(ctx: HttpContext) {
    const input = await validateBody(ctx, integrationKeyDeleteInput)
    await deleteIntegrationKey(ctx.actor!, ctx.params.keyType as IntegrationKeyType, input)
    return noContent(ctx)
  }
}
