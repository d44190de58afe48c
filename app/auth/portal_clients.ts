/*
| Portal application authentication (login, invitation acceptance): HTTP Basic with
| an active Portal client's id and secret, `X-Service-Application: merchant_portal`,
| and an `Origin`, when sent, among the client's allowed origins (outside production,
| also this service's own origins, for `/docs`).
|
| The secret follows the high-entropy secret rule (app/auth/high_entropy_secrets.ts):
| a keyed HMAC, compared in constant time, an unknown client id compared against a
| decoy of the same cost. A secret still stored as a scrypt hash (issued before that
| rule) verifies with scrypt and is rewritten in the keyed form on its next
| successful authentication.
*/
import { randomBytes } from 'node:crypto'
import PortalClient from '#models/portal_client'
import { configuredAddress, ownOrigins } from '#support/service_url'
import { generateSecret, hashSecret, verifySecret } from '#auth/high_entropy_secrets'
import { hydrate } from '#platform/hydrate'
import { directQuery } from '#platform/direct_query'

export const SERVICE_APPLICATION = 'merchant_portal'

// The scheme name is case-insensitive (RFC 7235 §2.1).
const BASIC = /^Basic ([A-Za-z0-9+/]+={0,2})$/i
// NUL, which PostgreSQL text cannot hold (a query with it fails instead of finding no
// client), and what the UTF-8 decoder put for bytes that are not UTF-8.
// eslint-disable-next-line no-control-regex -- NUL is exactly what is refused
const NOT_AN_IDENTIFIER = /[\u0000\uFFFD]/

export function parseBasicAuthorization(header: string | undefined) {
  const match = BASIC.exec(header ?? '')
  if (!match) return null
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const separator = decoded.indexOf(':')
  if (separator <= 0) return null
  const clientId = decoded.slice(0, separator)
  if (NOT_AN_IDENTIFIER.test(clientId)) return null
  return { clientId, secret: decoded.slice(separator + 1) }
}

/**
 * Outside production, this service's own origins pass too: a browser sends them from
 * `/docs`, where a developer logs in with the demo client whatever HOST and PORT the
 * service runs on (app/support/service_url.ts). Production accepts the client's
 * allowed origins only.
 */
const serviceOrigins = ownOrigins(configuredAddress())

export function originAllowed(client: PortalClient, origin: string | undefined) {
  return (
    origin === undefined ||
    client.allowedOrigins.includes(origin) ||
    serviceOrigins.includes(origin)
  )
}

export async function authenticatePortalClient(request: {
  authorization?: string
  serviceApplication?: string
  origin?: string
}): Promise<PortalClient | null> {
  if (request.serviceApplication !== SERVICE_APPLICATION) return null
  const credentials = parseBasicAuthorization(request.authorization)
  if (!credentials || credentials.clientId.length > 64 || credentials.secret.length > 256)
    return null

  // One prepared statement and a shallow hydration (see findByLoginIdentity).
  const [row] = await directQuery(
    'portal_clients:by-client-id',
    'select * from portal_clients where client_id = $1',
    [credentials.clientId]
  )
  const client = row ? hydrate(PortalClient, row) : null
  const { matches, upgradedHash } = await verifySecret(
    client?.secretHash ?? null,
    credentials.secret
  )
  if (!client || !matches || !client.isActive || !originAllowed(client, request.origin)) {
    return null
  }
  if (upgradedHash) await upgradeSecretHash(client, upgradedHash)
  return client
}

/**
 * Replaces a legacy scrypt hash by its keyed form, only if it is still the hash that
 * was verified (a concurrent rotation wins).
 */
async function upgradeSecretHash(client: PortalClient, upgradedHash: string) {
  await PortalClient.query()
    .where('id', client.id)
    .where('secret_hash', client.secretHash)
    .update({ secret_hash: upgradedHash, updated_at: new Date() })
  client.secretHash = upgradedHash
}

/** Creates a Portal client; the plaintext secret is returned once and only its hash is stored. */
export async function createPortalClient(input: { name: string; origins: string[] }) {
  const clientId = `pc_${randomBytes(12).toString('hex')}`
  const clientSecret = generateSecret()
  const client = await PortalClient.create({
    name: input.name,
    clientId,
    secretHash: hashSecret(clientSecret),
    allowedOrigins: input.origins,
    isActive: true,
  })
  return { client, clientSecret }
}
