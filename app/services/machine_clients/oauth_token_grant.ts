/*
| POST /oauth/token (portal-api.md › Machine token endpoint; RFC 6749 §4.4, §5.2).
|
| Checks, in this order: request shape (form only, each parameter once, client
| credentials in the form or in HTTP Basic but not both) → invalid_request;
| grant_type → unsupported_grant_type; client authentication → invalid_client;
| scope → invalid_scope. The secret is compared in constant time, and an unknown
| client costs the same work as a known one. Ownership, merchant activation and the
| rotation deadline are NOT checked here (Authentication rule 7): they are checked
| when the token is used. Two statements: the client read, then the token insert
| that re-checks the client under FOR SHARE (MachineAccessTokensProvider.issueIfUsable).
*/
import OAuthError from '#exceptions/oauth_error'
import OauthClient from '#models/oauth_client'
import { directQuery } from '#platform/direct_query'
import { isPlainObject } from '#support/plain_object'
import { clientSecretMatches } from '#auth/oauth_client_secrets'
import { machineTokenLifetimeSeconds } from '#auth/machine_access_tokens'
import oauthConfig from '#config/oauth'
import { DECIMAL_ID } from '#support/decimal_id'

const CLIENT_ID = DECIMAL_ID
const MAX_CREDENTIAL_LENGTH = 256
// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by single spaces.
const SCOPE_PARAM = /^(?:[\x21\x23-\x5B\x5D-\x7E]+(?: [\x21\x23-\x5B\x5D-\x7E]+)*)?$/

export interface TokenRequest {
  authorization: string | undefined
  contentType: string | undefined
  body: unknown
}

export interface TokenResponse {
  token_type: 'Bearer'
  expires_in: number
  access_token: string
}

interface ClientCredentials {
  clientId: string
  clientSecret: string | undefined
  usedBasic: boolean
}

/** RFC 6749 §2.3.1: Basic user and password are form-urlencoded before base64. */
function formDecode(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '))
  } catch {
    return null
  }
}

/** `Basic <base64(id:secret)>`; null when the header is not Basic; throws when Basic is malformed. */
function basicCredentials(authorization: string | undefined): ClientCredentials | null {
  if (authorization === undefined) return null
  const match = /^basic(?: +(.*))?$/i.exec(authorization.trim())
  if (!match) return null
  const encoded = (match[1] ?? '').trim()
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw OAuthError.invalidClient(true)
  const decoded = Buffer.from(encoded, 'base64').toString('utf8')
  const separator = decoded.indexOf(':')
  if (separator <= 0) throw OAuthError.invalidClient(true)
  const clientId = formDecode(decoded.slice(0, separator))
  const clientSecret = formDecode(decoded.slice(separator + 1))
  if (clientId === null || clientSecret === null) throw OAuthError.invalidClient(true)
  return { clientId, clientSecret, usedBasic: true }
}

function singleParameter(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string') {
    throw OAuthError.invalidRequest(`The ${name} parameter must be sent exactly once.`)
  }
  return value
}

/** Scopes to grant: the default when `scope` is omitted, none when empty, else each registered one. */
export function resolveScopes(scope: string | undefined): string[] {
  if (scope === undefined) return [...oauthConfig.defaultScopes]
  if (!SCOPE_PARAM.test(scope)) throw new OAuthError('invalid_scope', 'The scope is malformed.')
  const requested = scope === '' ? [] : [...new Set(scope.split(' '))]
  const unknown = requested.filter((name) => !oauthConfig.scopes.includes(name))
  if (unknown.length > 0) {
    throw new OAuthError('invalid_scope', 'The requested scope is unknown.')
  }
  return requested
}

export async function grantMachineToken(request: TokenRequest): Promise<TokenResponse> {
  const mediaType = (request.contentType ?? '').split(';')[0].trim().toLowerCase()
  if (mediaType !== 'application/x-www-form-urlencoded') {
    throw OAuthError.invalidRequest('The request must be application/x-www-form-urlencoded.')
  }
  const body = isPlainObject(request.body) ? request.body : {}

  const grantType = singleParameter(body, 'grant_type')
  const scope = singleParameter(body, 'scope')
  const formClientId = singleParameter(body, 'client_id')
  const formClientSecret = singleParameter(body, 'client_secret')
  const basic = basicCredentials(request.authorization)
  if (basic && (formClientId !== undefined || formClientSecret !== undefined)) {
    throw OAuthError.invalidRequest(
      'Client credentials must be sent either in the Authorization header or in the body, not both.'
    )
  }

  if (grantType === undefined || grantType === '') {
    throw OAuthError.invalidRequest('The grant_type parameter is required.')
  }
  if (grantType !== 'client_credentials') {
    throw new OAuthError('unsupported_grant_type', 'Only client_credentials is supported.')
  }

  const credentials: ClientCredentials | null =
    basic ??
    (formClientId !== undefined
      ? { clientId: formClientId, clientSecret: formClientSecret, usedBasic: false }
      : null)
  const expiresIn = machineTokenLifetimeSeconds()
  const client = await authenticateClient(credentials)
  // Only an authenticated client learns whether its scope is valid (RFC 6749 §5.2).
  const scopes = resolveScopes(scope)
  // The client was read without a lock; the insert re-checks it under FOR SHARE in
  // the same statement, so a revocation committed meanwhile refuses the grant.
  const token = await OauthClient.accessTokens.issueIfUsable(client.id, client.secretHash, {
    scopes,
    expiresInSeconds: expiresIn,
  })
  if (!token) throw OAuthError.invalidClient(credentials?.usedBasic ?? false)
  return { token_type: 'Bearer', expires_in: expiresIn, access_token: token.value!.release() }
}

interface ClientRow {
  id: number
  kind: string
  secretHash: string
  revokedAt: Date | null
}

/**
 * An unrevoked confidential machine client whose secret matches; else invalid_client.
 * One read of the columns the check needs (no model hydration on this hot path).
 */
async function authenticateClient(credentials: ClientCredentials | null): Promise<ClientRow> {
  const usedBasic = credentials?.usedBasic ?? false
  const secret = credentials?.clientSecret ?? ''
  const wellFormed =
    credentials !== null &&
    CLIENT_ID.test(credentials.clientId) &&
    credentials.clientSecret !== undefined &&
    secret.length > 0 &&
    secret.length <= MAX_CREDENTIAL_LENGTH
  const [client] = wellFormed
    ? await directQuery<ClientRow>(
        'oauth_clients:grant',
        `select id, kind, secret_hash as "secretHash", revoked_at as "revokedAt"
           from oauth_clients where id = $1`,
        [credentials.clientId]
      )
    : []
  const matches = clientSecretMatches(
    client?.secretHash ?? null,
    secret.slice(0, MAX_CREDENTIAL_LENGTH)
  )
  if (!client || !matches || client.kind !== 'machine' || client.revokedAt !== null) {
    throw OAuthError.invalidClient(usedBasic)
  }
  return client
}
