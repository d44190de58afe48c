import type { HttpContext } from '@adonisjs/core/http'
import type { PortalActor, UserActor } from '#auth/actor'
import type { InputValue } from '#http/endpoint'
import { receiveSingleFile } from '#http/single_file_upload'
import MerchantScopeMiddleware from '#middleware/merchant_scope_middleware'
import { showMerchant } from '#services/merchants/show_merchant'
import { updateMerchant } from '#services/merchants/update_merchant'
import { currentLogoUrl } from '#services/merchants/logo_storage'
import { LOGO_MAX_BYTES, normalizeLogo, refuseWhileLaneFull } from '#services/merchants/logo_image'
import { deleteLogo, uploadLogo } from '#services/merchants/merchant_logo'
import type { merchantEndpoints as endpoints } from '#controllers/merchant_endpoints'

/**
 * portal-api.md › Merchant and logo. Admin routes refuse developers (403) in the
 * route's stack, before any body or file is read.
 */
export default class MerchantController {
  /** GET /portal/merchant (Both) */
  async show(_input: undefined, actor: UserActor) {
    return showMerchant(actor)
  }

  /** PATCH /portal/merchant (Admin, strict) */
  async update(input: InputValue<typeof endpoints.update>, actor: UserActor) {
    return updateMerchant(actor, input)
  }

  /** GET /portal/merchant/logo (Both) */
  async showLogo(_input: undefined, actor: PortalActor) {
    const { merchant } = actor.session
    return { url: await currentLogoUrl(merchant.id, merchant.logoPath) }
  }

  /** POST /portal/merchant/logo (Admin; multipart `file` only, no query) */
  async storeLogo(
    _input: object,
    actor: PortalActor,
    ctx: HttpContext,
    _prepared: undefined,
    signal: AbortSignal
  ) {
    const merchantId = actor.session.merchant.id
    refuseWhileLaneFull(merchantId)
    const url = await receiveSingleFile(
      ctx,
      {
        field: 'file',
        maxBytes: LOGO_MAX_BYTES,
        tooLarge: 'The file must not be larger than 2,048 KB.',
        // The multipart fields are known only now: a merchant selector among them is 403.
        beforeFieldChecks: () => new MerchantScopeMiddleware().handle(ctx, async () => {}),
      },
      async (upload) => uploadLogo(actor, await normalizeLogo(merchantId, upload, { signal }))
    )
    return { url }
  }

  /** DELETE /portal/merchant/logo (Admin; no body, no query) */
  async destroyLogo(_input: object, actor: UserActor) {
    await deleteLogo(actor)
  }
}
