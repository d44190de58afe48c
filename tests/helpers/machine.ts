/*
| Building blocks of the machine-client tests: issuing through the Portal API,
| consuming the delivery, and asking the token endpoint.
*/
import type { ApiClient } from '@japa/api-client'
import db from '@adonisjs/lucid/services/db'
import { signedInMember, type Session } from '#tests/helpers/portal'
import OauthClient from '#models/oauth_client'
import MerchantOauthClient from '#models/merchant_oauth_client'
import { generateClientSecret, hashClientSecret } from '#auth/oauth_client_secrets'
import { route } from '#tests/helpers/routes'

let labelCounter = 0
export function uniqueLabel(prefix = 'Server') {
  labelCounter += 1
  return `${prefix} ${labelCounter}`
}

export async function issueThroughApi(client: ApiClient, session: Session, label = uniqueLabel()) {
  const response = await client
    .post(route('merchant.machine_clients.store'))
    .header('Authorization', session.bearer)
    .json({ label, reason: 'Integration server for orders', current_password: session.password })
  if (response.status() !== 201) {
    throw new Error(`issue failed: ${response.status()} ${JSON.stringify(response.body())}`)
  }
  return response.body().data as {
    client: { id: number; oauth_client_id: number; label: string }
    delivery: { id: string; expires_at: string }
  }
}

export async function consumeThroughApi(client: ApiClient, session: Session, deliveryId: string) {
  const response = await client
    .post(route('merchant.credential_deliveries.consume', { delivery: deliveryId }))
    .header('Authorization', session.bearer)
    .json({ current_password: session.password })
  if (response.status() !== 200) {
    throw new Error(`consume failed: ${response.status()} ${JSON.stringify(response.body())}`)
  }
  return response.body().data as {
    oauth_client_id: number
    oauth_client_secret: string
    grant_type: string
    token_url: string
  }
}

/** An administrator with a machine client whose secret has been consumed. */
export async function machineClientWithSecret(client: ApiClient, session?: Session) {
  const admin = session ?? (await signedInMember('administrator'))
  const issued = await issueThroughApi(client, admin)
  const credential = await consumeThroughApi(client, admin, issued.delivery.id)
  return {
    admin,
    ownershipId: issued.client.id,
    clientId: String(credential.oauth_client_id),
    secret: credential.oauth_client_secret,
  }
}

export function tokenRequest(
  client: ApiClient,
  form: Record<string, string>,
  basic?: { id: string; secret: string }
) {
  const request = client.post(route('oauth.token')).form(form)
  if (basic) {
    request.header(
      'Authorization',
      `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}`
    )
  }
  return request
}

export async function machineToken(
  client: ApiClient,
  credentials: { clientId: string; secret: string },
  scope?: string
) {
  const form: Record<string, string> = {
    grant_type: 'client_credentials',
    client_id: credentials.clientId,
    client_secret: credentials.secret,
  }
  if (scope !== undefined) form.scope = scope
  const response = await tokenRequest(client, form)
  if (response.status() !== 200) {
    throw new Error(`token failed: ${response.status()} ${JSON.stringify(response.body())}`)
  }
  return response.body().access_token as string
}

/** GET /api/v1/merchant-api/whoami with a machine access token. */
export function whoAmI(client: ApiClient, accessToken: string) {
  return client.get(route('merchant_api.whoami')).bearerToken(accessToken)
}

/** An OAuth client of another kind mapped to the merchant (legacy data), straight in the DB. */
export async function mappedClientOfKind(
  merchantId: number,
  kind: 'personal_access' | 'password' | 'framework' | 'ecosystem',
  label = uniqueLabel(kind)
) {
  const oauthClient = await OauthClient.create({
    name: label,
    kind,
    secretHash: hashClientSecret(generateClientSecret()),
    revokedAt: null,
  })
  return MerchantOauthClient.create({
    merchantId,
    oauthClientId: oauthClient.id,
    label,
    reason: 'Legacy mapping',
    isActive: true,
    issuedByUserId: null,
    replacesMerchantOauthClientId: null,
  })
}

export async function auditRows(action?: string) {
  const query = db.from('audit_logs').orderBy('id', 'asc')
  if (action) query.where('action', action)
  return query
}

export async function firstRow(table: string) {
  const row = await db.from(table).orderBy('id', 'asc').first()
  return row as Record<string, any>
}

export async function auditOutcomes(action: string) {
  const rows = await auditRows(action)
  return rows.map((row: { outcome: string }) => row.outcome)
}
