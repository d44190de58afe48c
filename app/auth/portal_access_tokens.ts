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
import { Settings } from 'luxon'
import { AccessToken as AccessTokenClass } from '@adonisjs/auth/access_tokens'
import { ClockedAccessTokensProvider } from '#auth/clocked_access_tokens'
import { directQuery } from '#auth/direct_query'

export const PORTAL_ABILITY = 'merchant-portal'

export type PortalAccessToken = AccessToken & { portalClientId: number | null }

/** What one PAT resolves to, read in one statement; null when the token does not verify. */
export interface ResolvedPortalToken {
  token: PortalAccessToken
  /** The owner's row (users columns), null when the owner is gone. */
  user: Record<string, any> | null
  /** The owner's merchant row (merchants columns), null when none. */
  merchant: Record<string, any> | null
  /** Whether the issuing Portal application exists and is active. */
  applicationActive: boolean
}

interface JoinedColumns {
  select: string
  user: [alias: string, column: string][]
  merchant: [alias: string, column: string][]
}
let joinedColumns: JoinedColumns | undefined

/** Every column of the two models, aliased `u_<column>` / `m_<column>`, computed once. */
function columnsOf(user: LucidModel, merchant: LucidModel): JoinedColumns {
  if (joinedColumns) return joinedColumns
  const aliased = (model: LucidModel, prefix: string) =>
    [...model.$columnsDefinitions.values()].map(
      ({ columnName }) => [`${prefix}${columnName}`, columnName] as [string, string]
    )
  const userColumns = aliased(user, 'u_')
  const merchantColumns = aliased(merchant, 'm_')
  const list = (table: string, columns: [string, string][]) =>
    columns.map(([alias, column]) => `${table}."${column}" as "${alias}"`).join(', ')
  joinedColumns = {
    select: `${list('u', userColumns)}, ${list('m', merchantColumns)}`,
    user: userColumns,
    merchant: merchantColumns,
  }
  return joinedColumns
}

function pick(row: Record<string, any>, columns: [string, string][]) {
  const picked: Record<string, any> = {}
  for (const [alias, column] of columns) picked[column] = row[alias]
  return picked
}

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

  /**
   * The Portal request's hot path: the token, its owner, the owner's merchant and
   * whether the issuing application is active, in ONE statement (the same checks as
   * verify() followed by three finds took four round trips). The secret and expiry
   * are checked before anything is written; last_used_at as in verify().
   */
  async resolve(
    tokenValue: string,
    models: { user: LucidModel; merchant: LucidModel }
  ): Promise<ResolvedPortalToken | null> {
    const decoded = AccessTokenClass.decode(this.prefix, tokenValue)
    if (!decoded || !/^[1-9][0-9]{0,15}$/.test(decoded.identifier)) return null
    const columns = columnsOf(models.user, models.merchant)
    const [row] = await directQuery(
      `${this.table}:resolve-portal`,
      `select t.id, t.tokenable_id, t.type, t.name, t.hash, t.abilities, t.created_at,
              t.updated_at, t.last_used_at, t.expires_at, t.portal_client_id,
              coalesce(pc.is_active, false) as application_active, ${columns.select}
         from ${this.table} t
         left join users u on u.id = t.tokenable_id
         left join merchants m on m.id = u.merchant_id
         left join portal_clients pc on pc.id = t.portal_client_id
        where t.id = $1 and t.type = $2`,
      [decoded.identifier, this.type]
    )
    if (!row) return null
    const token = this.dbRowToAccessToken(row as any)
    if (!token.verify(decoded.secret)) return null
    const now = Settings.now()
    if (token.expiresAt && token.expiresAt.getTime() <= now) return null
    await this.touch(row.id, token.lastUsedAt, now)
    return {
      token: Object.assign(token, { portalClientId: row.portal_client_id as number | null }),
      user: row.u_id === null ? null : pick(row, columns.user),
      merchant: row.m_id === null ? null : pick(row, columns.merchant),
      applicationActive: row.application_active === true,
    }
  }

  async verify(tokenValue: Secret<string>): Promise<PortalAccessToken | null> {
    const verified = await this.verifyRow(tokenValue)
    if (!verified) return null
    return Object.assign(verified.token, {
      portalClientId: verified.row.portal_client_id as number | null,
    })
  }
}
