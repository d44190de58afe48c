import type { HttpContext } from '@adonisjs/core/http'
import { noContent, respond } from '#http/responses'
import { receiveSingleFile } from '#http/single_file_upload'
import { NO_BODY } from '#validators/rules/input'
import { validateBody, validateBodyWithPrechecks, validateQuery } from '#http/request_input'
import { merchantUpdateInput, merchantUpdatePrechecks } from '#validators/merchant'
import MerchantTransformer from '#transformers/merchant_transformer'
import type { MerchantLogo } from '#shapes/merchant'
import MerchantScopeMiddleware from '#middleware/merchant_scope_middleware'
import { showMerchant } from '#services/merchants/show_merchant'
import { updateMerchant } from '#services/merchants/update_merchant'
import { currentLogoUrl } from '#services/merchants/logo_storage'
import { LOGO_MAX_BYTES, normalizeLogo, refuseWhileLaneFull } from '#services/merchants/logo_image'
import { deleteLogo, uploadLogo } from '#services/merchants/merchant_logo'

/**
 * portal-api.md › Merchant and logo. Admin routes refuse developers (403) in the
 * route's stack, before any body or file is read.
 */
export default class MerchantController {
  /** GET /portal/merchant (Both) */
  async show(ctx: HttpContext) {
    return respond(ctx, 'Success', MerchantTransformer.transform(await showMerchant(ctx.actor!)))
  }

  /** PATCH /portal/merchant (Admin, strict) */
  async update(ctx: HttpContext) {
    const input = await validateBodyWithPrechecks(ctx, merchantUpdateInput, merchantUpdatePrechecks)
    const view = await updateMerchant(ctx.actor!, input)
    return respond(ctx, 'Merchant profile updated.', MerchantTransformer.transform(view))
  }

  /** GET /portal/merchant/logo (Both) */
  async showLogo(ctx: HttpContext) {
    const { merchant } = ctx.portal!
    return respond(ctx, 'Success', {
      url: await currentLogoUrl(merchant.id, merchant.logoPath),
    } satisfies MerchantLogo)
  }

  /** POST /portal/merchant/logo (Admin; multipart `file` only) */
  async storeLogo(ctx: HttpContext) {
    await validateQuery(ctx, NO_BODY)
    refuseWhileLaneFull(ctx.portal!.merchant.id)
    const url = await receiveSingleFile(
      ctx,
      {
        field: 'file',
        maxBytes: LOGO_MAX_BYTES,
        tooLarge: 'The file must not be larger than 2,048 KB.',
        // The multipart fields are known only now: a merchant selector among them is 403.
        beforeFieldChecks: () => new MerchantScopeMiddleware().handle(ctx, async () => {}),
      },
      async (upload) => uploadLogo(ctx.actor!, await normalizeLogo(ctx.portal!.merchant.id, upload))
    )
    return respond(ctx, 'Logo updated.', { url } satisfies MerchantLogo)
  }

  /** DELETE /portal/merchant/logo (Admin; no body, no query) */
  async destroyLogo(ctx: HttpContext) {
    await validateQuery(ctx, NO_BODY)
    await validateBody(ctx, NO_BODY)
    await deleteLogo(ctx.actor!)
    return noContent(ctx)
  }
}
