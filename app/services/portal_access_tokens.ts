/*
| Portal PATs: the auth package's database token provider with two changes.
|
| - The issuing Portal application is recorded on the token (portal_client_id), so
|   that deactivating the application stops its tokens.
| - verify() checks the secret and expiry BEFORE touching the row, and writes
|   last_used_at at most once a minute per token instead of on every request (the
|   stock provider writes on every verify, before checking the secret, which lets
|   an unauthenticated caller cause writes). Expiry is judged on the app clock
|   (luxon), which tests control.
*/
import { DateTime } from 'luxon'
import { inspect } from 'node:util'
import type { Secret } from '@adonisjs/core/helpers'
import { AccessToken, DbAccessTokensProvider } from '@adonisjs/auth/access_tokens'
import type { LucidModel } from '@adonisjs/lucid/types/model'

export const PORTAL_ABILITY = 'merchant-portal'
const LAST_USED_RESOLUTION_SECONDS = 60

export type PortalAccessToken = AccessToken & { portalClientId: number | null }

export class PortalAccessTokensProvider<
  Model extends LucidModel,
> extends DbAccessTokensProvider<Model> {
  static forModel<M extends LucidModel>(model: M) {
    return new PortalAccessTokensProvider<M>({
      tokenableModel: model,
      prefix: 'pat_',
      type: 'portal',
    })
  }

  async issue(
    user: InstanceType<Model>,
    options: { abilities: string[]; expiresInMinutes: number; portalClientId: number }
  ): Promise<PortalAccessToken> {
    const now = DateTime.now()
    const transient = AccessToken.createTransientToken(
      user.$primaryKeyValue as number,
      this.tokenSecretLength,
      `${options.expiresInMinutes} minutes`
    )
    const expiresAt = now.plus({ minutes: options.expiresInMinutes }).toJSDate()
    const db = await this.getDb()
    const [row] = await db
      .table(this.table)
      .insert({
        tokenable_id: transient.userId,
        type: this.type,
        name: null,
        hash: transient.hash,
        abilities: JSON.stringify(options.abilities),
        portal_client_id: options.portalClientId,
        created_at: now.toJSDate(),
        updated_at: now.toJSDate(),
        last_used_at: null,
        expires_at: expiresAt,
      })
      .returning('id')
    const id = typeof row === 'object' ? row.id : row
    if (!id) throw new Error(`Cannot save access token: unexpected insert result ${inspect(row)}`)
    return Object.assign(
      new AccessToken({
        identifier: id,
        tokenableId: transient.userId,
        type: this.type,
        prefix: this.prefix,
        secret: transient.secret,
        name: null,
        hash: transient.hash,
        abilities: options.abilities,
        createdAt: now.toJSDate(),
        updatedAt: now.toJSDate(),
        lastUsedAt: null,
        expiresAt,
      }),
      { portalClientId: options.portalClientId }
    )
  }

  async verify(tokenValue: Secret<string>): Promise<PortalAccessToken | null> {
    const decoded = AccessToken.decode(this.prefix, tokenValue.release())
    if (!decoded || !/^[1-9][0-9]{0,15}$/.test(decoded.identifier)) return null
    const db = await this.getDb()
    const row = await db.from(this.table).where({ id: decoded.identifier, type: this.type }).first()
    if (!row) return null

    const token = Object.assign(this.dbRowToAccessToken(row), {
      portalClientId: row.portal_client_id as number | null,
    })
    if (!token.verify(decoded.secret)) return null
    const now = DateTime.now()
    if (token.expiresAt && token.expiresAt.getTime() <= now.toMillis()) return null

    const staleBefore = now.minus({ seconds: LAST_USED_RESOLUTION_SECONDS })
    if (!token.lastUsedAt || token.lastUsedAt.getTime() < staleBefore.toMillis()) {
      await db
        .from(this.table)
        .where('id', row.id)
        .where((query) =>
          query.whereNull('last_used_at').orWhere('last_used_at', '<', staleBefore.toJSDate())
        )
        .update({ last_used_at: now.toJSDate() })
    }
    return token
  }

  /** Deletes every token of the user (revocation). Runs inside the caller's transaction when given. */
  async revokeAll(userId: number, client?: { from: (table: string) => any }) {
    const db = client ?? (await this.getDb())
    return db.from(this.table).where({ tokenable_id: userId, type: this.type }).delete()
  }

  async revoke(tokenId: number | string | bigint) {
    const db = await this.getDb()
    return db
      .from(this.table)
      .where({ id: String(tokenId), type: this.type })
      .delete()
  }
}
