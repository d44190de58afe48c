/*
| Issue 10: the OpenAPI document cannot drift from the code.
| - docs/openapi.json and the generated client types are what the code generates now;
| - every route registered in the router has an entry, and every entry is a
|   registered route;
| - every operation states its limits, and every /api/v1 route consumes one;
| - the typed client example logs in and reads /portal/me against the service.
| The response validation of every functional test lives in tests/bootstrap.ts.
*/
import { readFile } from 'node:fs/promises'
import { test } from '@japa/runner'
import router from '@adonisjs/core/services/router'
import { artifactPath, ARTIFACTS, renderArtifacts } from '#openapi/artifacts'
import { OPERATIONS, openApiDocument } from '#openapi/document'
import { resetState } from '#tests/helpers/database'
import { createMerchantWithUser, createPortalClient } from '#tests/helpers/portal'
import { TEST_PORTAL_CLIENT_SECRET } from '#database/factories/portal_client_factory'
import { readOwnProfile } from '../../../clients/portal-api/example.js'
import { serverOrigin } from '#tests/helpers/test_server'

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

/** `METHOD /path/{param}` of every registered route (HEAD is implied by GET). */
function registeredRoutes() {
  return Object.values(router.toJSON())
    .flat()
    .flatMap((route) =>
      route.methods
        .filter((method) => HTTP_METHODS.includes(method))
        .map(
          (method) =>
            `${method} ${route.pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/\*$/, '/{path}')}`
        )
    )
}

const described = () =>
  OPERATIONS.map((operation) => `${operation.method.toUpperCase()} ${operation.path}`)

test.group('OpenAPI document', () => {
  test('docs/openapi.json and clients/portal-api/schema.d.ts are current (run node ace openapi:generate)', async ({
    assert,
  }) => {
    const rendered = await renderArtifacts()
    for (const name of Object.keys(ARTIFACTS) as (keyof typeof ARTIFACTS)[]) {
      const committed = await readFile(artifactPath(name), 'utf8').catch(() => '')
      assert.isTrue(
        committed === rendered[name],
        `${ARTIFACTS[name]} is stale: run \`node ace openapi:generate\` and commit it`
      )
    }
  })

  test('every registered route has an entry; every entry is registered', ({ assert }) => {
    const registered = registeredRoutes()
    const documented = described()
    assert.deepEqual(
      registered.filter((route) => !documented.includes(route)),
      [],
      'registered routes without an entry in the endpoint declarations'
    )
    assert.deepEqual(
      documented.filter((route) => !registered.includes(route)),
      [],
      'entries of routes the router does not serve'
    )
  })

  test('each contract route of the Endpoints index has an entry', ({ assert }) => {
    const paths = Object.keys(openApiDocument().document.paths)
    const index = [
      '/api/v1/auth/login',
      '/api/v1/auth/logout',
      '/api/v1/auth/reset-password/reset-link',
      '/api/v1/auth/reset-password/new-password',
      '/api/v1/portal/me',
      '/api/v1/portal/me/email/verify',
      '/api/v1/portal/me/email/resend',
      '/api/v1/portal/me/password',
      '/portal/profile/email/verify/{verification}',
      '/api/v1/portal/merchant',
      '/api/v1/portal/merchant/logo',
      '/api/v1/portal/merchant/machine-clients',
      '/api/v1/portal/merchant/machine-clients/{client}/rotate',
      '/api/v1/portal/merchant/machine-clients/{client}/revoke',
      '/api/v1/portal/merchant/credential-deliveries/{delivery}/consume',
      '/api/v1/portal/merchant/integration-keys',
      '/api/v1/portal/merchant/integration-keys/{keyType}',
      '/api/v1/portal/team/members',
      '/api/v1/portal/team/members/{member}/role',
      '/api/v1/portal/team/members/{member}',
      '/api/v1/portal/team/invitations',
      '/api/v1/portal/team/invitations/{invitation}/resend',
      '/api/v1/portal/team/invitations/{invitation}',
      '/api/v1/portal/team/invitations/accept',
      '/api/v1/portal/collections/transactions',
      '/api/v1/portal/collections/transactions/{transaction}',
      '/api/v1/portal/collections/transactions/{transaction}/history',
      '/api/v1/portal/collections/transactions/{transaction}/history/{history}',
      '/api/v1/portal/collections/metrics',
      '/api/v1/portal/collections/charts',
      '/oauth/token',
      '/health/live',
      '/health/ready',
      '/api/v1/merchant-api/whoami',
    ]
    assert.deepEqual(
      index.filter((path) => !paths.includes(path)),
      []
    )
    assert.lengthOf(OPERATIONS, new Set(OPERATIONS.map((operation) => operation.operationId)).size)
  })

  test('every error code of the contract and decisions.md §1 is documented on some operation', ({
    assert,
  }) => {
    const codes = new Set<string>()
    const { paths } = openApiDocument().document as { paths: Record<string, any> }
    for (const item of Object.values(paths)) {
      for (const [key, operation] of Object.entries<any>(item)) {
        if (key.startsWith('x-')) continue // path-level extensions (x-method-not-allowed)
        for (const response of Object.values<any>(operation.responses)) {
          const properties = response.content?.['application/json']?.schema?.properties
          for (const code of properties?.error_code?.enum ?? []) codes.add(code)
          for (const code of properties?.error?.enum ?? []) codes.add(code)
        }
      }
    }
    const contract = [
      'ECOSYSTEM_CLIENT_UNAUTHENTICATED',
      'INVALID_CREDENTIALS',
      'UNAUTHENTICATED',
      'ACCESS_TOKEN_INVALID',
      'MERCHANT_USER_NOT_AUTHORIZED',
      'ECOSYSTEM_APPLICATION_NOT_AUTHORIZED',
      'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
      'MERCHANT_SCOPE_MISMATCH',
      'FORBIDDEN',
      'INVALID_SIGNATURE',
      'CLIENT_MERCHANT_NOT_AUTHORIZED',
      'INSUFFICIENT_SCOPE',
      'NOT_FOUND',
      'CONFLICT',
      'LAST_ADMINISTRATOR',
      'MEMBER_ALREADY_EXISTS',
      'INVITATION_ALREADY_PENDING',
      'USER_BELONGS_TO_ANOTHER_MERCHANT',
      'USER_NOT_ELIGIBLE',
      'USER_IDENTITY_CONFLICT',
      'GONE',
      'INVITATION_UNAVAILABLE',
      'VALIDATION_ERROR',
      'RATE_LIMITED',
      'SERVICE_UNAVAILABLE',
      'MERCHANT_MACHINE_API_UNAVAILABLE',
      'RESET_TOKEN_INVALID',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'SERVER_ERROR',
      'invalid_request',
      'unsupported_grant_type',
      'invalid_client',
      'invalid_scope',
      // Not listed: METHOD_NOT_ALLOWED belongs to no operation (a known path, another
      // method: info.description); TOKEN_ISSUER_MISCONFIGURED is emitted by no route
      // of this build.
    ]
    assert.deepEqual(
      contract.filter((code) => !codes.has(code)),
      []
    )
  })

  test("every operation's description states its limits; every /api/v1 route has one", ({
    assert,
  }) => {
    const { paths } = openApiDocument().document as { paths: Record<string, any> }
    for (const operation of OPERATIONS) {
      const entry = paths[operation.path][operation.method]
      const label = `${operation.method.toUpperCase()} ${operation.path}`
      assert.match(entry.description, /\*\*Limits/, label)
      if (operation.path.startsWith('/api/v1/')) {
        assert.isArray(operation.limits, label)
        assert.isAbove((operation.limits as unknown[]).length, 0, label)
        assert.include(entry.description, 'per minute per', label)
      }
    }
  })

  test('a limit declared on a route line (middleware.limit) is named by its operation', ({
    assert,
  }) => {
    const operations = new Map(
      OPERATIONS.map((operation) => [
        `${operation.method.toUpperCase()} ${operation.path}`,
        operation,
      ])
    )
    for (const route of Object.values(router.toJSON()).flat()) {
      const declared = [...route.middleware.all()]
        .filter((entry: any) => typeof entry === 'object' && entry?.name === 'limit')
        .map((entry: any) => entry.args?.name as string)
      if (declared.length === 0) continue
      for (const method of route.methods.filter((name) => HTTP_METHODS.includes(name))) {
        const key = `${method} ${route.pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`
        const documented = operations.get(key)?.limits
        const names = Array.isArray(documented) ? documented.map((limit) => limit.name) : []
        for (const name of declared) assert.include(names, name, `${key} declares limit ${name}`)
      }
    }
  })

  test('strict inputs are closed (additionalProperties: false), lenient ones are open', ({
    assert,
  }) => {
    const { paths } = openApiDocument().document as { paths: Record<string, any> }
    const body = (path: string, method: string) =>
      paths[path][method].requestBody.content['application/json'].schema
    assert.isFalse(body('/api/v1/portal/me', 'patch').additionalProperties)
    assert.isFalse(body('/api/v1/portal/merchant/machine-clients', 'post').additionalProperties)
    assert.isFalse(body('/api/v1/portal/team/members/{member}/role', 'patch').additionalProperties)
    assert.notProperty(body('/api/v1/auth/login', 'post'), 'additionalProperties')
    assert.notProperty(body('/api/v1/portal/me/password', 'put'), 'additionalProperties')
  })
})

test.group('OpenAPI document: the typed client', (group) => {
  group.each.setup(() => resetState())

  test('the openapi-typescript client example logs in and reads /portal/me', async ({ assert }) => {
    const application = await createPortalClient()
    const { user, merchant, password } = await createMerchantWithUser()
    const profile = await readOwnProfile({
      baseUrl: serverOrigin(),
      clientId: application.clientId,
      clientSecret: TEST_PORTAL_CLIENT_SECRET,
      username: user.email,
      password,
    })
    assert.equal(profile.id, user.id)
    assert.equal(profile.merchant.reference_id, merchant.referenceId)
  })
})
