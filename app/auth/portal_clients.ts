/*
| Portal application authentication (login, invitation acceptance): HTTP Basic with
| an active Portal client's id and secret, `X-Service-Application: merchant_portal`,
| and an `Origin`, when sent, among the client's allowed origins.
*/
import { randomBytes } from 'node:crypto'
import hash from '@adonisjs/core/services/hash'
import PortalClient from '#models/portal_client'

export const SERVICE_APPLICATION = 'merchant_portal'

// Verifying against this when the client id is unknown keeps response time flat.
let decoyHash: Promise<string> | undefined

export function parseBasicAuthorization(header: string | undefined) {
  const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/.exec(header ?? '')
  if (!match) return null
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const separator = decoded.indexOf(':')
  if (separator <= 0) return null
  return { clientId: decoded.slice(0, separator), secret: decoded.slice(separator + 1) }
}

export function originAllowed(client: PortalClient, origin: string | undefined) {
  return origin === undefined || client.allowedOrigins.includes(origin)
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

  const client = await PortalClient.query().where('client_id', credentials.clientId).first()
  if (!client) {
    decoyHash ??= hash.make(randomBytes(16).toString('hex'))
    await hash.verify(await decoyHash, credentials.secret)
    return null
  }
  const secretMatches = await hash.verify(client.secretHash, credentials.secret)
  if (!secretMatches || !client.isActive || !originAllowed(client, request.origin)) return null
  return client
}

/** Creates a Portal client; the plaintext secret is returned once and only its hash is stored. */
export async function createPortalClient(input: { name: string; origins: string[] }) {
  const clientId = `pc_${randomBytes(12).toString('hex')}`
  const clientSecret = randomBytes(32).toString('base64url')
  const client = await PortalClient.create({
    name: input.name,
    clientId,
    secretHash: await hash.make(clientSecret),
    allowedOrigins: input.origins,
    isActive: true,
  })
  return { client, clientSecret }
}
