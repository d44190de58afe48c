import type { HttpContext } from '@adonisjs/core/http'
import app from '@adonisjs/core/services/app'
import BodyParserMiddleware from '@adonisjs/core/bodyparser_middleware'
import OAuthError from '#exceptions/oauth_error'
import OAuthTokenService from '#services/oauth_token_service'
import { enforceLimit } from '#limits/limits'
import { guardBodyDepth } from '#http/body_depth'

/**
 * portal-api.md › Machine token endpoint: POST {base_url}/oauth/token, OAuth format
 * (no envelope). The limit and the body parser run here rather than as route
 * middleware: errors of route middleware go straight to the Portal exception
 * handler, and this endpoint must answer every failure as RFC 6749 §5.2 says.
 */
export default class OAuthTokenController {
  async issue(ctx: HttpContext) {
    ctx.response.header('Cache-Control', 'no-store')
    ctx.response.header('Pragma', 'no-cache')
    try {
      await enforceLimit('oauthToken', `ip:${ctx.request.ip()}`)
      guardBodyDepth(ctx)
      const parser = await app.container.make(BodyParserMiddleware)
      await parser.handle(ctx, async () => {})
      const token = await OAuthTokenService.grant({
        authorization: ctx.request.header('authorization'),
        contentType: ctx.request.header('content-type'),
        body: ctx.request.body(),
      })
      ctx.response.status(200).send(token)
    } catch (error) {
      const oauthError = OAuthError.from(error)
      if (!oauthError) throw error
      for (const [name, value] of Object.entries(oauthError.headers)) {
        ctx.response.header(name, value)
      }
      ctx.response
        .status(oauthError.status)
        .send({ error: oauthError.code, error_description: oauthError.description })
    }
  }
}
