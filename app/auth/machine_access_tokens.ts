/*
| Machine access tokens (portal-api.md › Machine token endpoint, Authentication
| rule 7): the auth package's database token provider on the OauthClient model,
| with its own table (oauth_access_tokens), type and prefix (`mat_`), so that a
| Portal PAT (`pat_`, auth_access_tokens) never verifies as a machine token and
| the reverse. Scopes are the token's abilities.
|
| Verification and last_used_at: app/platform/clocked_access_tokens.ts.
*/
import { DateTime, Settings } from 'luxon'
import type { AccessToken } from '@adonisjs/auth/access_tokens'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import type { LucidModel } from '@adonisjs/lucid/types/model'
import settings from '#config/settings'
import { ClockedAccessTokensProvider } from '#platform/clocked_access_tokens'
import { directQuery } from '#platform/direct_query'
import { transientToken } from '#platform/token_value'

const DEFAULT_TTL_SECONDS = 3600

/** MACHINE_TOKEN_TTL_SECONDS, read per request (default 3600). */
export function machineTokenLifetimeSeconds(): number {
  const configured = Number(settings.machineTokenTtlSeconds())
  return Number.isFinite(configured) && configured >= 1
    ? Math.floor(configured)
    : DEFAULT_TTL_SECONDS
}

/** MACHINE_API_ENABLED, read per request (default true). */
export function machineApiEnabled(): boolean {
  const raw = settings.machineApiEnabled()
  if (raw === undefined || raw === null || raw === '') return true
  if (typeof raw === 'boolean') return raw
  return !['false', '0', 'no', 'off'].includes(String(raw).trim().toLowerCase())
}

export class MachineAccessTokensProvider<
  Model extends LucidModel,
> extends ClockedAccessTokensProvider<Model> {
  static forModel<M extends LucidModel>(model: M) {
    return new MachineAccessTokensProvider<M>({
      tokenableModel: model,
      table: 'oauth_access_tokens',
      prefix: 'mat_',
      type: 'machine',
    })
  }

  /** Issues a token with `scopes`; pass the grant's transaction as `client`. */
  issue(
    client: InstanceType<Model>,
    options: { scopes: string[]; expiresInSeconds: number; queryClient?: QueryClientContract }
  ): Promise<AccessToken> {
    return this.insertToken(client.$primaryKeyValue as number, {
      abilities: options.scopes,
      expiresAt: DateTime.now().plus({ seconds: options.expiresInSeconds }),
      client: options.queryClient,
    })
  }

  /**
   * The token grant's write, in one statement: inserts a token for the client only
   * if the client row, locked FOR SHARE, is still an unrevoked machine client with
   * the secret hash the caller verified. A revocation (update of that row, then
   * deletion of its tokens) either commits first — this statement waits for it,
   * re-reads the row and inserts nothing (null) — or waits for this statement and
   * then deletes the token: no token outlives its client's revocation.
   */
  async issueIfUsable(
    clientId: number,
    verifiedSecretHash: string,
    options: { scopes: string[]; expiresInSeconds: number }
  ): Promise<AccessToken | null> {
    // The clock tests control (luxon's), without a DateTime per grant.
    const now = new Date(Settings.now())
    const expiresAt = new Date(now.getTime() + options.expiresInSeconds * 1000)
    const transient = transientToken(clientId, this.tokenSecretLength)
    const [row] = await directQuery<{ id: number }>(
      `${this.table}:issue-if-usable`,
      `insert into ${this.table}
         (tokenable_id, type, name, hash, abilities, created_at, updated_at, last_used_at, expires_at)
       select c.id, $2, null, $3, $4, $5, $5, null, $6
         from oauth_clients c
        where c.id = $1 and c.kind = 'machine' and c.secret_hash = $7 and c.revoked_at is null
          for share of c
       returning id`,
      [
        clientId,
        this.type,
        transient.hash,
        JSON.stringify(options.scopes),
        now,
        expiresAt,
        verifiedSecretHash,
      ]
    )
    if (!row) return null
    return this.issuedToken(transient, row.id, options.scopes, now, expiresAt)
  }
}
