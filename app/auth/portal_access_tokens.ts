/*
| Portal PATs (portal-api.md › Authentication rules 1-3): tokens of the `portal`
| type in the auth package's table, prefix `pat_`, recording the issuing Portal
| application (portal_client_id) so that deactivating it stops its tokens.
| Verification and last_used_at: app/platform/clocked_access_tokens.ts.
*/
import { DateTime } from 'luxon'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import type { Secret } from '@adonisjs/core/helpers'
import type { AccessToken } from '@adonisjs/auth/access_tokens'
import type { LucidModel } from '@adonisjs/lucid/types/model'
import { Settings } from 'luxon'
import { ClockedAccessTokensProvider } from '#platform/clocked_access_tokens'
import { directQuery } from '#platform/direct_query'
import { DECIMAL_ID } from '#support/decimal_id'
import { decodeTokenValue, secretMatches, transientToken } from '#platform/token_value'
import {
  merchantColumnsOf,
  pick,
  sessionMerchant,
  sessionUser,
  type SessionMerchant,
  type SessionUser,
} from '#auth/session_columns'

export const PORTAL_ABILITY = 'merchant-portal'

export type PortalAccessToken = AccessToken & { portalClientId: number | null }

/** What one PAT resolves to, read in one statement; null when the token does not verify. */
export interface ResolvedPortalToken {
  token: PortalAccessToken
  /** Null when the owner is gone. */
  user: SessionUser | null
  /** Null when the owner has no merchant. */
  merchant: SessionMerchant | null
  /** Whether the issuing Portal application exists and is active. */
  applicationActive: boolean
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

  /** resolve()'s statement, written once (after the table is set): the same on every request. */
  readonly #resolveStatement = {
    name: `${this.table}:resolve-portal`,
    text: `select t.id, t.tokenable_id, t.type, t.name, t.hash, t.abilities, t.created_at,
              t.updated_at, t.last_used_at, t.expires_at, t.portal_client_id,
              coalesce(pc.is_active, false) as application_active,
              ${sessionUser.select}, ${sessionMerchant.select}
         from ${this.table} t
         left join users u on u.id = t.tokenable_id
         left join merchants m on m.id = u.merchant_id
         left join portal_clients pc on pc.id = t.portal_client_id
        where t.id = $1 and t.type = $2`,
  }

  /**
   * The Portal request's hot path: the token, its owner, the owner's merchant and
   * whether the issuing application is active, in ONE statement (the same checks as
   * verify() followed by three finds took four round trips). The secret and expiry
   * are checked before anything is written; last_used_at as in verify().
   */
  async resolve(tokenValue: string): Promise<ResolvedPortalToken | null> {
    const decoded = decodeTokenValue(this.prefix, tokenValue)
    if (!decoded || !DECIMAL_ID.test(decoded.identifier)) return null
    const { name, text } = this.#resolveStatement
    const [row] = await directQuery(name, text, [decoded.identifier, this.type])
    if (!row || !secretMatches(row.hash, decoded.secret)) return null
    const token = this.dbRowToAccessToken(row as any)
    const now = Settings.now()
    if (token.expiresAt && token.expiresAt.getTime() <= now) return null
    await this.touch(row.id, token.lastUsedAt, now)
    return {
      token: Object.assign(token, { portalClientId: row.portal_client_id as number | null }),
      user: row.u_id === null ? null : pick<SessionUser>(row, sessionUser.pairs),
      merchant: row.m_id === null ? null : pick<SessionMerchant>(row, sessionMerchant.pairs),
      applicationActive: row.application_active === true,
    }
  }

  /**
   * Login's write, in one statement once the password has been verified (a scrypt,
   * without any lock): re-reads the user row FOR SHARE, reads its merchant, and
   * inserts the PAT only if the row still holds the verified hash, is active, and
   * keeps the merchant and role judged before, and the merchant is active. A
   * password change, reset, removal or role change that commits first makes it insert
   * nothing; one in progress makes it wait; one after it revokes the PAT issued here.
   * (Was: Merchant.find, BEGIN, SELECT ... FOR SHARE, INSERT, COMMIT.)
   */
  async issueOnLogin(
    user: { id: number; merchantId: number; role: number; verifiedHash: string },
    options: { abilities: string[]; expiresInMinutes: number; portalClientId: number },
    models: { user: LucidModel; merchant: LucidModel }
  ): Promise<{
    token: PortalAccessToken | null
    /** Null when the user row is gone. */
    current: { passwordUnchanged: boolean } | null
    merchant: Record<string, any> | null
  }> {
    const merchantColumns = merchantColumnsOf(models.merchant)
    const now = DateTime.now().toJSDate()
    const expiresAt = DateTime.now().plus({ minutes: options.expiresInMinutes }).toJSDate()
    const transient = transientToken(user.id, this.tokenSecretLength)
    const [row] = await directQuery(
      `${this.table}:issue-on-login`,
      `with u as (
         select id, password, is_active, merchant_id, role from "users" where id = $1 for share
       ), m as (
         select m.* from merchants m join u on m.id = u.merchant_id
       ), issued as (
         insert into ${this.table}
           (tokenable_id, type, name, hash, abilities, portal_client_id,
            created_at, updated_at, last_used_at, expires_at)
         select u.id, $3, null, $4, $5, $6, $7, $7, null, $8
           from u join m on true
          where u.password = $2 and u.is_active and u.merchant_id = $9 and u.role = $10
            and m.is_active
         returning id
       )
       select (select id from issued) as token_id, u.password = $2 as password_unchanged,
              ${merchantColumns.select}
         from u left join m on true`,
      [
        user.id,
        user.verifiedHash,
        this.type,
        transient.hash,
        JSON.stringify(options.abilities),
        options.portalClientId,
        now,
        expiresAt,
        user.merchantId,
        user.role,
      ]
    )
    if (!row) return { token: null, current: null, merchant: null }
    const merchant = row.m_id === null ? null : pick(row, merchantColumns.pairs)
    const current = { passwordUnchanged: row.password_unchanged === true }
    if (row.token_id === null) return { token: null, current, merchant }
    const token = this.issuedToken(transient, row.token_id, options.abilities, now, expiresAt)
    return {
      token: Object.assign(token, { portalClientId: options.portalClientId }),
      current,
      merchant,
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
