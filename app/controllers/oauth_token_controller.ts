import type { HttpContext } from '@adonisjs/core/http'
import { grantMachineToken } from '#services/machine_clients/oauth_token_grant'
import type { MachineToken } from '#shapes/machine_access'

/**
 * portal-api.md › Machine token endpoint: POST {base_url}/oauth/token, OAuth format
 * (no envelope). Its route line takes the token limit (per IP) and parses the form
 * body; the exception handler answers every failure of this route in OAuth form.
 */
export default class OAuthTokenController {
  async issue(_input: undefined, _actor: undefined, ctx: HttpContext) {
    const token = await grantMachineToken({
      authorization: ctx.request.header('authorization'),
      contentType: ctx.request.header('content-type'),
      body: ctx.request.body(),
    })
    ctx.response.status(200).send(token satisfies MachineToken)
  }
}
