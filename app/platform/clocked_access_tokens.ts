/*
| The auth package's database token provider, adjusted once for both kinds of
| tokens this service issues (Portal PATs and machine access tokens):
|
| - verify() checks the secret and the expiry BEFORE touching the row; the stock
|   provider writes last_used_at on every verification, before checking the secret,
|   so any caller could cause a write per request. Here last_used_at is written at
|   most once a minute per token, with a conditional UPDATE.
| - Expiry is judged on the app clock (luxon), which tests control.
| - Issuing can run inside the caller's transaction and record extra columns.
*/
import { DateTime } from 'luxon'
import { inspect } from 'node:util'
import { Secret } from '@adonisjs/core/helpers'
import { AccessToken, DbAccessTokensProvider } from '@adonisjs/auth/access_tokens'
import type { LucidModel } from '@adonisjs/lucid/types/model'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { directQuery } from '#platform/direct_query'
import { DECIMAL_ID } from '#support/decimal_id'
import {
  decodeTokenValue,
  secretMatches,
  tokenValueOf,
  transientToken,
} from '#platform/token_value'

const LAST_USED_RESOLUTION_SECONDS = 60

export class ClockedAccessTokensProvider<
  Model extends LucidModel,
> extends DbAccessTokensProvider<Model> {
  /** The token just inserted as row `id`, carrying its secret (shown once). */
  protected issuedToken(
    transient: ReturnType<typeof transientToken>,
    id: number | string,
    abilities: string[],
    issuedAt: Date,
    expiresAt: Date
  ): AccessToken {
    // Made without its secret, which the constructor would encode the slow way; the
    // value is set as the constructor would set it (tests/unit/token_value.spec.ts).
    const token = new AccessToken({
      identifier: id,
      tokenableId: transient.userId,
      type: this.type,
      name: null,
      hash: transient.hash,
      abilities,
      createdAt: issuedAt,
      updatedAt: issuedAt,
      lastUsedAt: null,
      expiresAt,
    })
    token.value = new Secret(tokenValueOf(this.prefix, id, transient.secret.release()))
    return token
  }

  /** Inserts a token for `ownerId`; the returned token carries its secret (shown once). */
  protected async insertToken(
    ownerId: number,
    options: {
      abilities: string[]
      expiresAt: DateTime
      columns?: Record<string, unknown>
      client?: QueryClientContract
    }
  ): Promise<AccessToken> {
    const now = DateTime.now()
    const transient = transientToken(ownerId, this.tokenSecretLength)
    const expiresAt = options.expiresAt.toJSDate()
    const db = options.client ?? (await this.getDb())
    const [row] = await db
      .table(this.table)
      .insert({
        tokenable_id: transient.userId,
        type: this.type,
        name: null,
        hash: transient.hash,
        abilities: JSON.stringify(options.abilities),
        ...options.columns,
        created_at: now.toJSDate(),
        updated_at: now.toJSDate(),
        last_used_at: null,
        expires_at: expiresAt,
      })
      .returning('id')
    const id = typeof row === 'object' ? row.id : row
    if (!id) throw new Error(`Cannot save access token: unexpected insert result ${inspect(row)}`)
    return this.issuedToken(transient, id, options.abilities, now.toJSDate(), expiresAt)
  }

  /** The verified token and its row, or null for a malformed, unknown, wrong or expired one. */
  protected async verifyRow(
    tokenValue: Secret<string>
  ): Promise<{ token: AccessToken; row: Record<string, any> } | null> {
    const decoded = decodeTokenValue(this.prefix, tokenValue.release())
    if (!decoded || !DECIMAL_ID.test(decoded.identifier)) return null
    const db = await this.getDb()
    const row = await db.from(this.table).where({ id: decoded.identifier, type: this.type }).first()
    if (!row || !secretMatches(row.hash, decoded.secret)) return null

    const token = this.dbRowToAccessToken(row)
    const now = DateTime.now()
    if (token.expiresAt && token.expiresAt.getTime() <= now.toMillis()) return null

    await this.touch(row.id, token.lastUsedAt, now.toMillis())
    return { token, row }
  }

  /**
   * Writes last_used_at when it is older than a minute (or unset): at most one write
   * a minute per token, and none at all on most requests.
   */
  protected async touch(id: number | string, lastUsedAt: Date | null, nowMillis: number) {
    const staleBefore = nowMillis - LAST_USED_RESOLUTION_SECONDS * 1000
    if (lastUsedAt && lastUsedAt.getTime() >= staleBefore) return
    await directQuery(
      `${this.table}:touch`,
      `update ${this.table} set last_used_at = $2
        where id = $1 and (last_used_at is null or last_used_at < $3)`,
      [id, new Date(nowMillis), new Date(staleBefore)]
    )
  }

  async verify(tokenValue: Secret<string>): Promise<AccessToken | null> {
    const verified = await this.verifyRow(tokenValue)
    return verified?.token ?? null
  }

  /** Deletes every token of the owner (revocation), inside the caller's transaction when given. */
  async revokeAll(ownerId: number, client?: QueryClientContract) {
    const db = client ?? (await this.getDb())
    return db.from(this.table).where({ tokenable_id: ownerId, type: this.type }).delete()
  }

  async revoke(tokenId: number | string) {
    const db = await this.getDb()
    return db
      .from(this.table)
      .where({ id: String(tokenId), type: this.type })
      .delete()
  }
}
