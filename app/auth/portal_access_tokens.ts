/*
| Portal PATs (portal-api.md › Authentication rules 1-3): tokens of the `portal`
| type in the auth package's table, prefix `pat_`, recording the issuing Portal
| application (portal_client_id) so that deactivating it stops its tokens.
| Verification and last_used_at: app/auth/clocked_access_tokens.ts.
*/
import { DateTime } from 'luxon'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import type { Secret } from '@adonisjs/core/helpers'
import type { AccessToken } from '@adonisjs/auth/access_tokens'
import type { LucidModel } from '@adonisjs/lucid/types/model'
import { ClockedAccessTokensProvider } from '#auth/clocked_access_tokens'

export const PORTAL_ABILITY = 'merchant-portal'

export type PortalAccessToken = AccessToken & { portalClientId: number | null }

export class PortalAccessTokensProvider<
  Model extends LucidModel,
> extends ClockedAccessTokensProvider<Model> {
  static forModel<M extends LucidModel>(model: M) {
    return new PortalAccessTokensProvider<M>({
      tokenableModel: model,
      prefix: 'pat_',
      type: 'portal',
    })
  }

  async issue(
    user: InstanceType<Model>,
    options: {
      abilities: string[]
      expiresInMinutes: number
      portalClientId: number
      /** Issue inside this transaction (login re-checks the user row in it). */
      client?: QueryClientContract
    }
  ): Promise<PortalAccessToken> {
    const token = await this.insertToken(user.$primaryKeyValue as number, {
      abilities: options.abilities,
      expiresAt: DateTime.now().plus({ minutes: options.expiresInMinutes }),
      columns: { portal_client_id: options.portalClientId },
      client: options.client,
    })
    return Object.assign(token, { portalClientId: options.portalClientId })
  }

  async verify(tokenValue: Secret<string>): Promise<PortalAccessToken | null> {
    const verified = await this.verifyRow(tokenValue)
    if (!verified) return null
    return Object.assign(verified.token, {
      portalClientId: verified.row.portal_client_id as number | null,
    })
  }
}
