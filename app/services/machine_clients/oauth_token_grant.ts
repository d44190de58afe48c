/*
| POST /oauth/token (portal-api.md › Machine token endpoint; RFC 6749 §4.4, §5.2).
|
| Checks, in this order: request shape (form only, each parameter once, client
| credentials in the form or in HTTP Basic but not both) → invalid_request;
| grant_type → unsupported_grant_type; client authentication → invalid_client;
| scope → invalid_scope. The secret is compared in constant time, and an unknown
| client costs the same work as a known one. Ownership, merchant activation and the
| rotation deadline are NOT checked here (Authentication rule 7): they are checked
| when the token is used.
*/
import OAuthError from '#exceptions/oauth_error'
import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import OauthClient from '#models/oauth_client'
import { clientSecretMatches } from '#auth/oauth_client_secrets'
import { machineTokenLifetimeSeconds } from '#auth/machine_access_tokens'
import oauthConfig from '#config/oauth'

const CLIENT_ID = /^[1-9][0-9]{0,15}$/
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
  const body =
    request.body && typeof request.body === 'object' && !Array.isArray(request.body)
      ? (request.body as Record<string, unknown>)
      : {}

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
  // The client row is read FOR SHARE and the token inserted in the same transaction:
  // a revocation (which updates that row, then deletes the client's tokens) either
  // commits first — and the grant sees the client revoked — or waits for the grant
  // and then deletes the token it issued. No token outlives its client's revocation.
  const token = await db.transaction(async (trx) => {
    const client = await authenticateClient(credentials, trx)
    // Only an authenticated client learns whether its scope is valid (RFC 6749 §5.2).
    const scopes = resolveScopes(scope)
    return OauthClient.accessTokens.issue(client, {
      scopes,
      expiresInSeconds: expiresIn,
      queryClient: trx,
    })
  })
  return { token_type: 'Bearer', expires_in: expiresIn, access_token: token.value!.release() }
}

/** An unrevoked confidential machine client whose secret matches; else invalid_client. */
async function authenticateClient(
  credentials: ClientCredentials | null,
  trx: TransactionClientContract
): Promise<OauthClient> {
  const usedBasic = credentials?.usedBasic ?? false
  const secret = credentials?.clientSecret ?? ''
  const wellFormed =
    credentials !== null &&
    CLIENT_ID.test(credentials.clientId) &&
    credentials.clientSecret !== undefined &&
    secret.length > 0 &&
    secret.length <= MAX_CREDENTIAL_LENGTH
  const client = wellFormed
    ? await OauthClient.query({ client: trx }).where('id', credentials.clientId).forShare().first()
    : null
  const matches = clientSecretMatches(
    client?.secretHash ?? null,
    secret.slice(0, MAX_CREDENTIAL_LENGTH)
  )
  if (!client || !matches || !client.isMachineClient || client.isRevoked) {
    throw OAuthError.invalidClient(usedBasic)
  }
  return client
}
