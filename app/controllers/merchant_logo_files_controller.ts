import type { HttpContext } from '@adonisjs/core/http'
import drive from '@adonisjs/drive/services/main'
import ApiError from '#exceptions/api_error'
import { contentTypeOfKey } from '#services/merchants/logo_storage'

/**
 * Serves logos of the `fs` disk at APP_URL/media/logos/<merchant>/<name> (the
 * `logo_url` of portal-api.md › Merchant resource). Only logo-shaped keys; the content
 * type comes from the server-chosen extension, never sniffed (nosniff), and the
 * response is cacheable for a year because a new logo always gets a new name (its
 * cache policy: merchant_logo_files_endpoints.ts).
 */
export default class MerchantLogoFilesController {
  async show(_input: undefined, _actor: undefined, ctx: HttpContext) {
    const key = `logos/${ctx.params.merchant}/${ctx.params.file}`
    const contentType = contentTypeOfKey(key)
    if (!contentType) throw ApiError.notFound()
    const disk = drive.use('fs')
    let stream: Awaited<ReturnType<typeof disk.getStream>>
    let size: number
    try {
      const metadata = await disk.getMetaData(key)
      size = metadata.contentLength
      stream = await disk.getStream(key)
    } catch {
      throw ApiError.notFound()
    }
    ctx.response.header('Content-Type', contentType)
    ctx.response.header('Content-Length', String(size))
    ctx.response.header('X-Content-Type-Options', 'nosniff')
    ctx.response.header('Content-Security-Policy', "default-src 'none'; sandbox")
    ctx.response.header('Cross-Origin-Resource-Policy', 'cross-origin')
    ctx.response.stream(stream)
  }
}
