/*
| Property-based fuzzing of every route (issue 9 › Proof that holds for every route).
|
| The routes come from the running router, so routes added later are covered without
| editing this file. Each run sends a batch of hostile requests at once: wrong JSON
| types, null, 100 KB strings, deep nesting, lone surrogates and NUL, `__proto__` and
| `constructor` keys, numbers past bigint, arrays for objects, malformed JSON, wrong
| content types, duplicate and nested query parameters, odd route ids, and oversize or
| odd Authorization, X-Request-Id and X-Forwarded-For headers. A share of the requests
| carries real credentials (administrator and developer PATs, the Portal
| application's Basic credentials) so that authenticated code paths are reached.
|
| Every response: status below 500; an error is the envelope of decisions.md §1 (OAuth
| form on /oauth/token), 429 with Retry-After; no stack trace, SQL, hash or known
| secret in any body. Afterwards the server is still ready.
|
| Seeded and reproducible: FUZZ_SEED=<seed> replays a run (the seed is in the failure
| message and printed when the run starts); FUZZ_RUNS sets the number of batches.
*/
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import { test } from '@japa/runner'
import fc from 'fast-check'
import router from '@adonisjs/core/services/router'
import mail from '@adonisjs/mail/services/main'
import { settleBackgroundDeliveries } from '#services/mailer'
import { resetState } from '#tests/helpers/database'
import { appHeaders, issuePat, signedInMember, teammate } from '#tests/helpers/portal'
import { createInvitation } from '#tests/helpers/team'
import { issueThroughApi } from '#tests/helpers/machine'
import { setEnv } from '#tests/helpers/env'
import { TEST_PORTAL_CLIENT_SECRET } from '#database/factories/portal_client_factory'
import { ERROR_ENVELOPE_KEYS } from '#tests/helpers/foundation'
import { route } from '#tests/helpers/routes'
import { raiseLimits } from '#tests/helpers/limits'

const BATCH = 10
const RUNS = Number(process.env.FUZZ_RUNS ?? 500)
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31

interface Route {
  pattern: string
  methods: string[]
}

interface Credentials {
  adminPat: string
  developerPat: string
  basic: string
  password: string
  ids: Record<string, string[]>
}

// Stand-ins for the current PATs, replaced when a request is sent: PATs are issued
// afresh for every batch, since a fuzzed role change or removal may revoke earlier ones.
const ADMIN_PAT = '{{admin_pat}}'
const DEVELOPER_PAT = '{{developer_pat}}'

interface FuzzRequest {
  method: string
  path: string
  headers: Record<string, string>
  body?: string
}

/** Every route of the running router, HEAD left out (GET covers it). */
function routesOfRouter(): Route[] {
  const domains = router.toJSON()
  return Object.values(domains)
    .flat()
    .map((entry) => ({
      pattern: entry.pattern,
      methods: entry.methods.filter((method) => method !== 'HEAD'),
    }))
    .filter((entry) => entry.methods.length > 0)
}

// ---- leaves -------------------------------------------------------------------------
const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\uD800',
    '\uDFFF',
    'x\uD83D',
    '\uFEFF',
    '%00',
    '../../etc/passwd',
    "' OR 1=1 --",
    '<script>alert(1)</script>',
    '${jndi:ldap://x}',
    '__proto__',
    'constructor',
    'null',
    'true',
    '1e309',
    '-0',
    '99999999999999999999999',
    'administrator',
    'developer',
    'client_credentials',
    'a@b.c',
    ' Someone@Example.TEST ',
    'https://portal.example.test/reset',
    '123456',
    'Brand-New-Passw0rd!',
    '2026-03-01T00:00:00Z',
    'PAID',
    'live',
    'test'
  ),
  fc.constant('x'.repeat(100_000))
)

const FIELDS = [
  'email',
  'password',
  'password_confirmation',
  'current_password',
  'username',
  'reset_url',
  'token',
  'first_name',
  'last_name',
  'otp',
  'label',
  'reason',
  'overlap_minutes',
  'role',
  'value',
  'name',
  'contact_person',
  'dial_code',
  'phone',
  'address',
  'website',
  'merchant',
  'merchant_id',
  'merchant_reference_id',
  'grant_type',
  'client_id',
  'client_secret',
  'scope',
  'page',
  'per_page',
  'status',
  'environment',
  'from',
  'to',
  'currency',
  'timezone',
  'interval',
  'payment_brand',
  'query',
  'merchant_transaction_id',
  'proof',
  'expires',
  'signature',
  'id',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'a.b',
  '',
  'x'.repeat(300),
]
const fieldName = fc.constantFrom(...FIELDS)

const leaf = fc.oneof(
  hostileText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(2 ** 53 + 1, -1, 0, 1, 5, 10_080, 1e21)
)

const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    tie('object')
  ),
  object: fc.array(fc.tuple(fieldName, tie('value')), { maxLength: 5 }).map((entries) => {
    const object: Record<string, unknown> = {}
    for (const [key, value] of entries) {
      Object.defineProperty(object, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      })
    }
    return object
  }),
})).value

function nestedText(depth: number) {
  return `{"email":${'['.repeat(depth)}${']'.repeat(depth)}}`
}

/** A body as sent: JSON of a generated value, or text JSON.stringify cannot produce. */
const bodyText = fc.oneof(
  { weight: 6, arbitrary: jsonValue.map((value) => JSON.stringify(value) ?? 'null') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '{',
      '{"email":',
      '{"a":1,}',
      "{'a':1}",
      'null',
      '[]',
      '"text"',
      '12345678901234567890123456789012345678901234567890',
      '{"id":123456789012345678901234567890,"overlap_minutes":1e400}',
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}',
      '{"email":"a@b.c","email":"x@y.z"}',
      '{"merchant":{"id":{"toString":1}}}',
      '{"merchant_id":[1,2],"merchant":{"id":[]}}',
      '\u0000',
      '\uFEFF{}',
      nestedText(40),
      nestedText(3000),
      `[${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}]`,
      '{"email":"\\ud800","password":"\\u0000"}',
      JSON.stringify({ label: 'x'.repeat(70_000) })
    ),
  },
  { weight: 1, arbitrary: fc.constant('') }
)

const contentType = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  '*/*',
  ''
)

// Header values must be latin-1 without control characters (Node refuses others).
const headerText = fc.oneof(
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    maxLength: 80,
  }),
  fc.constantFrom('x'.repeat(65), 'y'.repeat(4_000), '\u00ff\u00e9', ' ', '')
)

/** encodeURIComponent, except that a lone surrogate becomes its (invalid) UTF-8 bytes. */
function encode(text: string) {
  try {
    return encodeURIComponent(text)
  } catch {
    return encodeURIComponent(text.replace(/[\uD800-\uDFFF]/g, '')) + '%ED%A0%80'
  }
}

function queryString(pairs: Array<[string, string, boolean]>) {
  return pairs
    .map(([key, value, raw]) => (raw ? `${key}=${value}` : `${encode(key)}=${encode(value)}`))
    .join('&')
}

const queryPairs = fc.array(
  fc.tuple(
    fc.oneof(
      fieldName,
      fc.constantFrom('merchant[id]', 'a[b][c][d][e][f][g]', 'page[]', 'per_page[0]')
    ),
    fc.oneof(
      hostileText.map((text) => text.slice(0, 200)),
      fc.constantFrom('1', '0', '-1', '100', '101', '')
    ),
    fc.boolean().map((raw) => raw && false)
  ),
  { maxLength: 6 }
)
const rawQuery = fc.constantFrom(
  'page=1&page=2',
  'per_page=%zz',
  'a=%',
  '%C0%AF=1',
  'status',
  '&&&',
  'page=1;per_page=2'
)

function routeId(name: string, known: string[]) {
  return fc.oneof(
    { weight: 4, arbitrary: known.length > 0 ? fc.constantFrom(...known) : fc.constant('1') },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '0',
        '1',
        '01',
        '-1',
        '9223372036854775807',
        '9223372036854775808',
        '99999999999999999999',
        '999999999999999999999999',
        '1e3',
        '0x10',
        randomUUID(),
        randomUUID().toUpperCase(),
        '00000000-0000-0000-0000-000000000000',
        '01HZZZZZZZZZZZZZZZZZZZZZZZ',
        '81HZZZZZZZZZZZZZZZZZZZZZZZ',
        'authentication_token',
        'secret_key',
        'SECRET_KEY',
        '..',
        '%2e%2e',
        '%00',
        '%zz',
        '%C0%AF',
        '%',
        'a'.repeat(300)
      ),
    },
    {
      weight: 2,
      arbitrary: hostileText.map((text) => encode(text.slice(0, 100)) || name),
    }
  )
}

function requestArbitrary(routes: Route[], credentials: Credentials): fc.Arbitrary<FuzzRequest> {
  const authorization = fc.oneof(
    { weight: 3, arbitrary: fc.constant(`Bearer ${ADMIN_PAT}`) },
    { weight: 2, arbitrary: fc.constant(`Bearer ${DEVELOPER_PAT}`) },
    { weight: 2, arbitrary: fc.constant(credentials.basic) },
    { weight: 2, arbitrary: fc.constant(undefined) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'Bearer',
        'Bearer ',
        'bearer pat_abc.def',
        `Bearer pat_${'A'.repeat(6000)}.x`,
        'Bearer pat_MQ.secret',
        `Bearer ${credentials.adminPat}x`,
        `Basic ${credentials.basic.slice(6)}, Bearer ${credentials.adminPat}`,
        'Basic',
        'Basic !!!',
        'Basic Og==',
        `Basic ${Buffer.from(`${'i'.repeat(500)}:${'s'.repeat(5000)}`).toString('base64')}`,
        'Digest x',
        'Negotiate ' + 'z'.repeat(7000)
      ),
    },
    { weight: 1, arbitrary: headerText.map((text) => `Bearer ${text}`) }
  )
  return fc
    .record({
      route: fc.constantFrom(...routes),
      otherMethod: fc.oneof(
        { weight: 9, arbitrary: fc.constant(null) },
        {
          weight: 1,
          arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
        }
      ),
      methodIndex: fc.nat(),
      ids: fc
        .dictionary(fc.constantFrom('a'), fc.constant(''))
        .chain(() =>
          fc.record(
            Object.fromEntries(
              [
                'member',
                'client',
                'delivery',
                'invitation',
                'transaction',
                'history',
                'keyType',
                'verification',
                'other',
              ].map((name) => [name, routeId(name, credentials.ids[name] ?? [])])
            )
          )
        ),
      wildcard: fc.oneof(
        fc.constantFrom(
          'logo.png',
          'merchants/1/logo.webp',
          'a/../b',
          '..%2f..%2fetc%2fpasswd',
          ''
        ),
        fc.string({ maxLength: 20 }).map(encode)
      ),
      query: fc.oneof(queryPairs.map(queryString), rawQuery, fc.constant('')),
      body: fc.option(bodyText, { freq: 5 }),
      contentType,
      authorization,
      application: fc.boolean(),
      requestId: fc.option(headerText, { freq: 2 }),
      forwardedFor: fc.option(
        fc.oneof(
          headerText,
          fc.constantFrom(
            '127.0.0.1',
            '::1',
            '10.0.0.1, 10.0.0.2',
            '1.2.3.4,'.repeat(500),
            'not-an-ip',
            '[::1]:80'
          )
        ),
        { freq: 3 }
      ),
      merchantHeader: fc.oneof(
        { weight: 9, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: headerText }
      ),
    })
    .map((spec) => {
      const methods = spec.route.methods
      const method = spec.otherMethod ?? methods[spec.methodIndex % methods.length]
      const path = spec.route.pattern
        .replace(/:(\w+)\??/g, (_match, name: string) => {
          return (spec.ids as Record<string, string>)[name] ?? spec.ids.other
        })
        .replace(/\*$/, spec.wildcard)
      const headers: Record<string, string> = { Accept: 'application/json' }
      if (spec.authorization !== undefined) headers['Authorization'] = spec.authorization
      if (spec.application) headers['X-Service-Application'] = 'merchant_portal'
      if (spec.requestId !== null) headers['X-Request-Id'] = spec.requestId
      if (spec.forwardedFor !== null) headers['X-Forwarded-For'] = spec.forwardedFor
      if (spec.merchantHeader !== null) headers['X-Merchant-Id'] = spec.merchantHeader
      let body: string | undefined
      if (spec.body !== null && method !== 'GET') {
        body = spec.body
        if (spec.contentType) headers['Content-Type'] = spec.contentType
      }
      return { method, path: spec.query ? `${path}?${spec.query}` : path, headers, body }
    })
}

const agent = new http.Agent({ keepAlive: true, maxSockets: BATCH })

function send(request: FuzzRequest, pats: { admin: string; developer: string }) {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name,
      value.replace(ADMIN_PAT, pats.admin).replace(DEVELOPER_PAT, pats.developer),
    ])
  )
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>(
    (resolve, reject) => {
      const outgoing = http.request(
        {
          agent,
          host: process.env.HOST ?? '127.0.0.1',
          port: Number(process.env.PORT),
          method: request.method,
          path: request.path,
          headers: {
            ...headers,
            ...(request.body !== undefined
              ? { 'Content-Length': Buffer.byteLength(request.body) }
              : {}),
          },
        },
        (response) => {
          const chunks: Buffer[] = []
          response.on('data', (chunk) => chunks.push(chunk))
          response.on('end', () =>
            resolve({
              status: response.statusCode!,
              headers: response.headers,
              text: Buffer.concat(chunks).toString('utf8'),
            })
          )
          response.on('error', reject)
        }
      )
      outgoing.on('error', reject)
      if (request.body !== undefined) outgoing.write(request.body)
      outgoing.end()
    }
  )
}

const LEAKS = [
  /\n\s+at [^\n]*:\d+:\d+/, // stack frame
  /node_modules|\.ts:\d+|\.js:\d+/,
  /\b(?:select|insert into|delete from)\b[\s\S]{0,80}\b(?:from|where|values)\b/i,
  /syntax error at or near|violates (?:unique|foreign key|check) constraint|relation "\w+"/i,
  /\$scrypt\$/,
  /postgres(?:ql)?:\/\//i,
  /redis:\/\//i,
]

function problemsOf(
  request: FuzzRequest,
  response: { status: number; headers: http.IncomingHttpHeaders; text: string },
  secrets: string[]
): string[] {
  const problems: string[] = []
  if (response.status >= 500) problems.push(`status ${response.status}`)
  for (const leak of LEAKS) if (leak.test(response.text)) problems.push(`leak ${leak}`)
  if (response.status < 400 || request.method === 'HEAD') return problems
  for (const secret of secrets) if (response.text.includes(secret)) problems.push('secret in body')
  if (response.status === 429 && !/^\d+$/.test(String(response.headers['retry-after'] ?? ''))) {
    problems.push('429 without Retry-After')
  }
  let body: any
  try {
    body = JSON.parse(response.text)
  } catch {
    return [...problems, 'error body is not JSON']
  }
  if (/^\/oauth\/token\/?(?:\?|$)/.test(request.path)) {
    const keys = Object.keys(body ?? {})
    if (
      typeof body?.error !== 'string' ||
      keys.some((key) => !['error', 'error_description'].includes(key))
    ) {
      problems.push('not the OAuth error form')
    }
    return problems
  }
  if (body?.success !== false) problems.push('success is not false')
  if (typeof body?.message !== 'string' || body.message === '') problems.push('no message')
  if (typeof body?.error_code !== 'string' || !/^[A-Z][A-Z_]*$/.test(body.error_code)) {
    problems.push('no error_code')
  }
  const extra = Object.keys(body ?? {}).filter((key) => !ERROR_ENVELOPE_KEYS.includes(key))
  if (extra.length > 0) problems.push(`unexpected keys ${extra.join(',')}`)
  if (body?.errors !== undefined) {
    if (response.status !== 422) problems.push('errors outside a 422')
    const valid =
      body.errors !== null &&
      typeof body.errors === 'object' &&
      Object.values(body.errors).every(
        (messages) =>
          Array.isArray(messages) &&
          messages.length > 0 &&
          messages.every((message) => typeof message === 'string')
      )
    if (!valid) problems.push('malformed errors')
  }
  return problems
}

async function fixtures() {
  const team = await signedInMember('administrator')
  const developer = await teammate(team, 'developer')
  const other = await signedInMember('administrator')
  const { invitation } = await createInvitation(team.merchant, team.user)
  const adminPat = team.bearer.slice('Bearer '.length)
  return {
    adminPat,
    developerPat: developer.pat,
    basic: appHeaders(team.client).Authorization,
    password: team.password,
    ids: {
      member: [String(team.user.id), String(developer.user.id), String(other.user.id)],
      invitation: [invitation.id],
      keyType: ['authentication_token', 'secret_key'],
    } as Record<string, string[]>,
    secrets: [adminPat, developer.pat, TEST_PORTAL_CLIENT_SECRET, team.password],
    admin: team.user,
    developer: developer.user,
    client: team.client,
  }
}

test.group('Fuzz: every route against hostile input', (group) => {
  group.each.setup(() => resetState())

  test('no request makes a 500, breaks the envelope or leaks internals; the server stays ready', async ({
    assert,
    client,
  }) => {
    const restoreLimits = raiseLimits(100_000)
    const restoreEnv = setEnv('PORTAL_URL', 'https://portal.example.test')
    // Mails of fuzzed requests (reset links, invitations) go to the fake, not the outbox.
    mail.fake()
    const routes = routesOfRouter()
    assert.isAbove(routes.length, 10)
    const base = await fixtures()
    // A machine client and its pending delivery, so their ids reach real rows.
    const session = { bearer: `Bearer ${base.adminPat}` } as any
    const issued = await issueThroughApi(client, session).catch(() => null)
    if (issued) {
      base.ids.client = [String(issued.client.id)]
      base.ids.delivery = [issued.delivery.id]
    }
    let sent = 0
    const statuses = new Map<number, number>()
    const failures: string[] = []
    process.stdout.write(`fuzz: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} routes=${routes.length}\n`)
    try {
      const arbitrary = fc.array(requestArbitrary(routes, base), {
        minLength: BATCH,
        maxLength: BATCH,
      })
      await fc.assert(
        fc.asyncProperty(arbitrary, async (batch) => {
          const pats = {
            admin: await issuePat(base.admin, base.client),
            developer: await issuePat(base.developer, base.client),
          }
          const secrets = [...base.secrets, pats.admin, pats.developer]
          const responses = await Promise.all(batch.map((request) => send(request, pats)))
          sent += batch.length
          for (const response of responses) {
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
          }
          const found = responses.flatMap((response, index) =>
            problemsOf(batch[index], response, secrets).map(
              (problem) =>
                `${problem}: ${batch[index].method} ${batch[index].path.slice(0, 200)} → ${response.status} ${response.text.slice(0, 300)}`
            )
          )
          if (found.length > 0) {
            failures.push(...found)
            throw new Error(found.join('\n'))
          }
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true }
      )
    } catch (error) {
      throw new Error(
        `fuzz failed (replay with FUZZ_SEED=${SEED}):\n${failures.slice(0, 10).join('\n')}\n${(error as Error).message.slice(0, 2000)}`
      )
    } finally {
      // Work a fuzzed request started after its response must not run into the next test.
      await settleBackgroundDeliveries()
      mail.restore()
      restoreEnv()
      restoreLimits()
    }
    process.stdout.write(
      `fuzz: ${sent} requests; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}\n`
    )
    assert.isAtLeast(sent, RUNS * BATCH)
    const ready = await client.get(route('health.ready'))
    ready.assertStatus(200)
  }).timeout(480_000)
})
