/*
| Machine access tokens (portal-api.md › Machine token endpoint, Authentication
| rule 7): the auth package's database token provider on the OauthClient model,
| with its own table (oauth_access_tokens), type and prefix (`mat_`), so that a
| Portal PAT (`pat_`, auth_access_tokens) never verifies as a machine token and
| the reverse. Scopes are the token's abilities.
|
| As for PATs, verify() checks secret and expiry on the app clock (luxon, which
| tests control) before any write, and last_used_at is written at most once a minute.
*/
import { DateTime } from 'luxon'
import { inspect } from 'node:util'
import type { Secret } from '@adonisjs/core/helpers'
import { AccessToken, DbAccessTokensProvider } from '@adonisjs/auth/access_tokens'
import type { LucidModel } from '@adonisjs/lucid/types/model'
import env from '#start/env'

const LAST_USED_RESOLUTION_SECONDS = 60
const DEFAULT_TTL_SECONDS = 3600

/** MACHINE_TOKEN_TTL_SECONDS, read per request (default 3600). */
export function machineTokenLifetimeSeconds(): number {
  const configured = Number(env.get('MACHINE_TOKEN_TTL_SECONDS'))
  return Number.isFinite(configured) && configured >= 1
    ? Math.floor(configured)
    : DEFAULT_TTL_SECONDS
}

/** MACHINE_API_ENABLED, read per request (default true). */
export function machineApiEnabled(): boolean {
  const raw = env.get('MACHINE_API_ENABLED') as unknown
  if (raw === undefined || raw === null || raw === '') return true
  if (typeof raw === 'boolean') return raw
  return !['false', '0', 'no', 'off'].includes(String(raw).trim().toLowerCase())
}

export class MachineAccessTokensProvider<
  Model extends LucidModel,
> extends DbAccessTokensProvider<Model> {
  static forModel<M extends LucidModel>(model: M) {
    return new MachineAccessTokensProvider<M>({
      tokenableModel: model,
      table: 'oauth_access_tokens',
      prefix: 'mat_',
      type: 'machine',
    })
  }

  async issue(
    client: InstanceType<Model>,
    options: { scopes: string[]; expiresInSeconds: number }
  ): Promise<AccessToken> {
    const now = DateTime.now()
    const transient = AccessToken.createTransientToken(
      client.$primaryKeyValue as number,
      this.tokenSecretLength
    )
    const expiresAt = now.plus({ seconds: options.expiresInSeconds }).toJSDate()
    const db = await this.getDb()
    const [row] = await db
      .table(this.table)
      .insert({
        tokenable_id: transient.userId,
        type: this.type,
        name: null,
        hash: transient.hash,
        abilities: JSON.stringify(options.scopes),
        created_at: now.toJSDate(),
        updated_at: now.toJSDate(),
        last_used_at: null,
        expires_at: expiresAt,
      })
      .returning('id')
    const id = typeof row === 'object' ? row.id : row
    if (!id) throw new Error(`Cannot save access token: unexpected insert result ${inspect(row)}`)
    return new AccessToken({
      identifier: id,
      tokenableId: transient.userId,
      type: this.type,
      prefix: this.prefix,
      secret: transient.secret,
      name: null,
      hash: transient.hash,
      abilities: options.scopes,
      createdAt: now.toJSDate(),
      updatedAt: now.toJSDate(),
      lastUsedAt: null,
      expiresAt,
    })
  }

  async verify(tokenValue: Secret<string>): Promise<AccessToken | null> {
    const decoded = AccessToken.decode(this.prefix, tokenValue.release())
    if (!decoded || !/^[1-9][0-9]{0,15}$/.test(decoded.identifier)) return null
    const db = await this.getDb()
    const row = await db.from(this.table).where({ id: decoded.identifier, type: this.type }).first()
    if (!row) return null

    const token = this.dbRowToAccessToken(row)
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

  /** Deletes every token of the client (revocation), inside the caller's transaction when given. */
  async revokeAll(clientId: number, client?: { from: (table: string) => any }) {
    const db = client ?? (await this.getDb())
    return db.from(this.table).where({ tokenable_id: clientId, type: this.type }).delete()
  }
}
