/*
| Building blocks of the merchant tests (portal-api.md › Merchant and logo,
| Integration keys): route URLs by name, uploads, and the logo storage.
*/
import { rm } from 'node:fs/promises'
import type { ApiClient } from '@japa/api-client'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { route } from '#tests/helpers/routes'
import { serverOrigin } from '#tests/helpers/test_server'
import { REQUEST_MS, type ServerProcess } from '#tests/helpers/server_process'

export const MERCHANT = () => route('merchant.show')
export const LOGO = () => route('merchant.logo.show')
export const INTEGRATION_KEYS = () => route('merchant.integration_keys.show')
export const integrationKey = (keyType: string) =>
  route('merchant.integration_keys.update', { keyType })

export function uploadLogo(
  client: ApiClient,
  session: { bearer: string },
  bytes: Buffer,
  options: { filename?: string; contentType?: string; fields?: Record<string, string> } = {}
) {
  const request = client
    .post(LOGO())
    .header('Authorization', session.bearer)
    .file('file', bytes, {
      filename: options.filename ?? 'logo.png',
      contentType: options.contentType ?? 'image/png',
    })
  for (const [name, value] of Object.entries(options.fields ?? {})) request.field(name, value)
  return request
}

/**
 * POSTs `body`, a multipart body the caller built byte for byte (fetch sends it as
 * given; the api client would encode its own), to the logo upload.
 */
export async function postLogoMultipart(bearer: string, boundary: string, body: Buffer) {
  const response = await fetch(`${serverOrigin()}${LOGO()}`, {
    method: 'POST',
    headers: {
      'Authorization': bearer,
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
    },
    body,
  })
  return {
    status: response.status,
    body: (await response.json()) as { errors?: Record<string, string[]> },
  }
}

/** Empties the fs disk's logos (storage/logos) between tests. */
export async function clearLogoStorage() {
  await rm(app.makePath('storage', 'logos'), { recursive: true, force: true })
}

/** The path part of an absolute logo URL, to fetch it from the test server. */
export const pathOf = (url: string) => new URL(url).pathname

/** A request to a service process of the test's own (startProductionServer); the JSON body when there is one. */
export async function callProcess(
  server: ServerProcess,
  path: string,
  bearer: string,
  init: RequestInit = {}
) {
  const response = await fetch(`${server.base}${path}`, {
    ...init,
    headers: { Authorization: bearer },
    signal: AbortSignal.timeout(REQUEST_MS),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : null }
}

/** Uploads `bytes` as the logo to a service process of the test's own. */
export function uploadLogoToProcess(
  server: ServerProcess,
  bearer: string,
  bytes: Buffer,
  contentType: string
) {
  const form = new FormData()
  form.append('file', new Blob([new Uint8Array(bytes)], { type: contentType }), 'logo')
  return callProcess(server, LOGO(), bearer, { method: 'POST', body: form })
}

/** The merchant's stored logo key, as the database holds it. */
export async function logoPathOf(merchantId: number): Promise<string | null> {
  const row = await db.from('merchants').where('id', merchantId).select('logo_path').first()
  return row.logo_path
}
