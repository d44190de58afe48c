/*
| Requests many tests send the same way: a login through a Portal application, the
| signed-in member's profile (the cheapest authenticated read), and a request whose
| status is asserted as it is awaited.
*/
import type { ApiClient } from '@japa/api-client'
import type PortalClient from '#models/portal_client'
import { appHeaders } from '#tests/helpers/portal'
import { route } from '#tests/helpers/routes'

/**
 * POST /portal/auth/login through `app` with `body` (username and password, as sent);
 * `headers` are added to the application's, or replace them.
 */
export function portalLogin(
  client: ApiClient,
  app: PortalClient,
  body: unknown,
  headers: Record<string, string> = {}
) {
  return client
    .post(route('auth.login'))
    .headers({ ...appHeaders(app), ...headers })
    .json(body)
}

/** GET /portal/me with `authorization` (a `Bearer …` header value). */
export function getProfile(client: ApiClient, authorization: string) {
  return client.get(route('profile.show')).header('Authorization', authorization)
}

/** Awaits a request and asserts its status. */
export async function expectStatus<R extends { assertStatus(status: number): void }>(
  request: PromiseLike<R>,
  status: number
): Promise<R> {
  const response = await request
  response.assertStatus(status)
  return response
}
