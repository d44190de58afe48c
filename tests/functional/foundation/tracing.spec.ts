/*
| Distributed tracing (issue 22): the real server, started as in production, continues
| the caller's W3C trace. With OTEL_EXPORTER_OTLP_ENDPOINT set it exports the request's
| span, its SQL statements and its mail over OTLP/HTTP JSON to a receiver this file
| starts; with or without it, every log line of the request carries the trace's ids.
|
| The batch processor's delay is set far beyond the test, so the spans that arrive were
| flushed by the graceful shutdown (SIGTERM), as a deploy's last requests must be.
|
| What callers send is not believed (issue 38 › 4): a caller's unsampled flag does not
| switch export off, and `client.address` follows TRUSTED_PROXIES.
*/
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from '@japa/runner'
import { appKey } from '#config/app'
import { resetState } from '#tests/helpers/database'
import { createMerchantWithUser, signedInMember } from '#tests/helpers/portal'
import { route } from '#tests/helpers/routes'
import {
  eventually,
  EXIT_MS,
  exitOf,
  freePort,
  startProductionServer,
  within,
  type ServerProcess,
} from '#tests/helpers/server_process'

const PORTAL = 'https://portal.example.test'
const CALLER_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const CALLER_SPAN_ID = '00f067aa0ba902b7'
const SPAN_KIND_SERVER = 2

interface ExportedSpan {
  serviceName: unknown
  traceId: string
  spanId: string
  parentSpanId: string
  name: string
  kind: number
  attributes: Record<string, unknown>
}

/** The parts of an OTLP/HTTP JSON export these tests read. */
interface OtlpAttribute {
  key: string
  value: Record<string, unknown>
}
interface OtlpExport {
  resourceSpans: Array<{
    resource: { attributes: OtlpAttribute[] }
    scopeSpans: Array<{
      spans: Array<{
        traceId: string
        spanId: string
        parentSpanId?: string
        name: string
        kind: number
        attributes?: OtlpAttribute[]
      }>
    }>
  }>
}

/** An OTLP/HTTP JSON receiver on a free port: what the server exported to /v1/traces. */
async function startOtlpReceiver() {
  const bodies: string[] = []
  const server: Server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') bodies.push(body)
      response.writeHead(request.url === '/v1/traces' ? 200 : 404, {
        'Content-Type': 'application/json',
      })
      response.end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const valueOf = (value: Record<string, unknown>) => Object.values(value)[0]
  return {
    endpoint: `http://127.0.0.1:${port}`,
    raw: () => bodies.join('\n'),
    spans(): ExportedSpan[] {
      return bodies.flatMap((body) =>
        (JSON.parse(body) as OtlpExport).resourceSpans.flatMap((resourceSpans) => {
          const resource = Object.fromEntries(
            resourceSpans.resource.attributes.map((a) => [a.key, valueOf(a.value)])
          )
          return resourceSpans.scopeSpans.flatMap((scopeSpans) =>
            scopeSpans.spans.map((span) => ({
              serviceName: resource['service.name'],
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind,
              attributes: Object.fromEntries(
                (span.attributes ?? []).map((a) => [a.key, valueOf(a.value)])
              ),
            }))
          )
        })
      )
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The production server exporting to `endpoint`; spans leave only when it shuts down. */
function startTracedServer(endpoint: string, extraEnv: Record<string, string> = {}) {
  return startProductionServer({
    APP_KEY: appKey.release(),
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'merchant-portal-under-test',
    OTEL_BSP_SCHEDULE_DELAY: '600000',
    PORTAL_URL: PORTAL,
    ...extraEnv,
  })
}

async function stop(server: ServerProcess) {
  const exited = exitOf(server.child)
  server.child.kill('SIGTERM')
  return within(exited, EXIT_MS, 'exit after SIGTERM')
}

/** Whether `span` descends from `ancestor` through its parent span ids. */
function descendsFrom(span: ExportedSpan, ancestor: ExportedSpan, spans: ExportedSpan[]) {
  const byId = new Map(spans.map((s) => [s.spanId, s]))
  let current: ExportedSpan | undefined = span
  for (let depth = 0; current && depth < spans.length; depth++) {
    if (current.parentSpanId === ancestor.spanId) return true
    current = byId.get(current.parentSpanId)
  }
  return false
}

/** The JSON log lines the server printed. */
function logLines(server: ServerProcess): Array<Record<string, any>> {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
}

test.group('Tracing: OpenTelemetry export', (group) => {
  group.each.setup(() => resetState())

  test('one request is one trace continuing the caller’s, with its SQL statements as children', async ({
    assert,
    cleanup,
  }) => {
    const receiver = await startOtlpReceiver()
    cleanup(() => receiver.close())
    const { pat } = await signedInMember()
    const server = await startTracedServer(receiver.endpoint)
    cleanup(() => server.kill())

    const response = await fetch(`${server.base}${route('profile.show')}?proof=query-secret`, {
      headers: {
        Authorization: `Bearer ${pat}`,
        traceparent: `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`,
        tracestate: 'portal=frontdoor',
      },
    })
    assert.equal(response.status, 200)
    const { code } = await stop(server)
    assert.equal(code, 0, server.output())

    const spans = receiver.spans()
    assert.deepEqual([...new Set(spans.map((span) => span.traceId))], [CALLER_TRACE_ID])
    const serverSpans = spans.filter((span) => span.kind === SPAN_KIND_SERVER)
    assert.lengthOf(serverSpans, 1)
    const requestSpan = serverSpans[0]!
    assert.equal(requestSpan.parentSpanId, CALLER_SPAN_ID)
    assert.equal(requestSpan.name, `GET ${route('profile.show')}`)
    assert.equal(requestSpan.attributes['http.route'], route('profile.show'))
    assert.equal(requestSpan.attributes['http.response.status_code'], 200)
    assert.equal(requestSpan.serviceName, 'merchant-portal-under-test')

    const statements = spans.filter((span) => span.attributes['db.system.name'] === 'postgresql')
    assert.isAbove(statements.length, 0)
    assert.include(
      statements.map((span) => span.attributes['db.query.text']).join('\n'),
      'auth_access_tokens'
    )
    for (const span of spans.filter((s) => s !== requestSpan)) {
      assert.isTrue(descendsFrom(span, requestSpan, spans), `${span.name} outside the request`)
    }
    // Path only, as in the request log; and no credential in anything exported.
    assert.notProperty(requestSpan.attributes, 'url.query')
    assert.notInclude(receiver.raw(), 'query-secret')
    assert.notInclude(receiver.raw(), pat.split('.')[1]!)
  }).timeout(300_000)

  test('a mail a request sends is a span of the request’s trace, without its recipient', async ({
    assert,
    cleanup,
  }) => {
    const receiver = await startOtlpReceiver()
    cleanup(() => receiver.close())
    const { user } = await createMerchantWithUser()
    const server = await startTracedServer(receiver.endpoint)
    cleanup(() => server.kill())

    const response = await fetch(`${server.base}${route('auth.reset_link')}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'traceparent': `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`,
      },
      body: JSON.stringify({ email: user.email, reset_url: `${PORTAL}/reset` }),
    })
    assert.equal(response.status, 200)
    // The mail is sent after the answer; SIGTERM waits for it, then flushes its span.
    const { code } = await stop(server)
    assert.equal(code, 0, server.output())

    const spans = receiver.spans()
    const requestSpan = spans.find((span) => span.kind === SPAN_KIND_SERVER)!
    const mail = spans.find((span) => span.name === 'mail.send')
    assert.exists(mail, JSON.stringify(spans.map((span) => span.name)))
    assert.equal(mail!.traceId, CALLER_TRACE_ID)
    assert.isTrue(descendsFrom(mail!, requestSpan, spans))
    assert.equal(mail!.attributes['mail.class'], 'PasswordResetMail')
    assert.notInclude(receiver.raw(), user.email)
  }).timeout(300_000)

  test('an unreachable collector loses the spans, not the shutdown: SIGTERM still exits 0', async ({
    assert,
    cleanup,
  }) => {
    const receiver = await startOtlpReceiver()
    // The exporter retries until this bound: what an unreachable collector adds to a shutdown.
    const server = await startTracedServer(receiver.endpoint, {
      OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
    })
    cleanup(() => server.kill())
    const { pat } = await signedInMember()
    const response = await fetch(`${server.base}${route('profile.show')}`, {
      headers: { Authorization: `Bearer ${pat}` },
    })
    assert.equal(response.status, 200)
    await receiver.close()

    const { code } = await stop(server)
    assert.equal(code, 0, server.output())
    assert.include(server.output(), 'spans not exported at shutdown')
  }).timeout(300_000)

  test('a caller’s unsampled flag does not switch export off: its failed /oauth/token call is exported, and its id logged', async ({
    assert,
    cleanup,
  }) => {
    const receiver = await startOtlpReceiver()
    cleanup(() => receiver.close())
    const server = await startTracedServer(receiver.endpoint, { LOG_LEVEL: 'info' })
    cleanup(() => server.kill())

    const response = await fetch(`${server.base}${route('oauth.token')}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'traceparent': `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-00`,
      },
      body: 'grant_type=client_credentials&client_id=unknown&client_secret=wrong',
    })
    assert.equal(response.status, 401)
    const { code } = await stop(server)
    assert.equal(code, 0, server.output())

    const requestSpan = receiver.spans().find((span) => span.kind === SPAN_KIND_SERVER)
    assert.exists(requestSpan, receiver.raw())
    assert.equal(requestSpan!.traceId, CALLER_TRACE_ID)
    assert.equal(requestSpan!.parentSpanId, CALLER_SPAN_ID)
    assert.equal(requestSpan!.attributes['http.route'], route('oauth.token'))
    assert.equal(requestSpan!.attributes['http.response.status_code'], 401)
    const line = logLines(server).find((entry) => entry.trace_id === CALLER_TRACE_ID)
    assert.equal(line?.span_id, requestSpan!.spanId, server.output())
  }).timeout(300_000)

  test('the service’s own sampler decides an unsampled caller’s request, as one without a traceparent', async ({
    assert,
    cleanup,
  }) => {
    const receiver = await startOtlpReceiver()
    cleanup(() => receiver.close())
    // A ratio of 0 keeps nothing that starts here; a caller's sampled trace is still followed.
    const server = await startTracedServer(receiver.endpoint, {
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    })
    cleanup(() => server.kill())

    const sampledTraceId = 'a'.repeat(32)
    for (const traceparent of [
      `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-00`,
      `00-${sampledTraceId}-${CALLER_SPAN_ID}-01`,
      undefined,
    ]) {
      const response = await fetch(`${server.base}${route('profile.show')}`, {
        headers: traceparent ? { traceparent } : {},
      })
      assert.equal(response.status, 401)
    }
    const { code } = await stop(server)
    assert.equal(code, 0, server.output())

    const exportedTraces = new Set(receiver.spans().map((span) => span.traceId))
    assert.deepEqual([...exportedTraces], [sampledTraceId])
  }).timeout(300_000)

  test('client.address is the socket’s: Forwarded and X-Forwarded-For count only through TRUSTED_PROXIES', async ({
    assert,
    cleanup,
  }) => {
    const forwarding = {
      'X-Forwarded-For': '203.0.113.7',
      'Forwarded': 'for=198.51.100.9',
    }
    const clientAddressWith = async (extraEnv: Record<string, string>) => {
      const receiver = await startOtlpReceiver()
      cleanup(() => receiver.close())
      const server = await startTracedServer(receiver.endpoint, extraEnv)
      cleanup(() => server.kill())
      const response = await fetch(`${server.base}${route('profile.show')}`, {
        headers: forwarding,
      })
      assert.equal(response.status, 401)
      const { code } = await stop(server)
      assert.equal(code, 0, server.output())
      const requestSpan = receiver.spans().find((span) => span.kind === SPAN_KIND_SERVER)
      assert.exists(requestSpan, receiver.raw())
      assert.equal(requestSpan!.attributes['network.peer.address'], '127.0.0.1')
      return requestSpan!.attributes['client.address']
    }

    assert.equal(await clientAddressWith({ TRUSTED_PROXIES: '' }), '127.0.0.1')
    // The trusted proxy's X-Forwarded-For, as in rate limits and audit records; never Forwarded.
    assert.equal(await clientAddressWith({ TRUSTED_PROXIES: 'loopback' }), '203.0.113.7')
  }).timeout(300_000)
})

test.group('Tracing: trace ids in the logs, export off', (group) => {
  group.each.setup(() => resetState())

  test('every log line of a request carries its trace_id and span_id; a malformed traceparent is ignored', async ({
    assert,
    cleanup,
  }) => {
    const { user } = await createMerchantWithUser()
    // The reset mail goes to an SMTP port nothing listens on: its failure is logged
    // from the background work, outside the request's own logger.
    const server = await startProductionServer({
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
      LOG_LEVEL: 'info',
      PORTAL_URL: PORTAL,
      MAIL_MAILER: 'smtp',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(await freePort()),
    })
    cleanup(() => server.kill())
    const resetLink = (traceparent?: string) =>
      fetch(`${server.base}${route('auth.reset_link')}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(traceparent === undefined ? {} : { traceparent }),
        },
        body: JSON.stringify({ email: user.email, reset_url: `${PORTAL}/reset` }),
      })

    const continued = await resetLink(`00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`)
    assert.equal(continued.status, 200)
    await eventually(
      async () => logLines(server).some((entry) => entry.msg === 'mail delivery failed'),
      'mail failure logged'
    )
    const malformed = [
      'not-a-traceparent',
      `00-${CALLER_TRACE_ID.toUpperCase()}-${CALLER_SPAN_ID}-01`,
      `00-${'0'.repeat(32)}-${CALLER_SPAN_ID}-01`,
      `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01-trailing`,
      `ff-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`,
    ]
    for (const traceparent of [...malformed, undefined]) {
      const response = await fetch(`${server.base}${route('profile.show')}`, {
        headers: traceparent === undefined ? {} : { traceparent },
      })
      assert.equal(response.status, 401, `traceparent ${traceparent}`)
    }
    await eventually(
      async () => logLines(server).filter((entry) => entry.status === 401).length === 6,
      'six requests logged'
    )

    const lines = logLines(server)
    const ofCallersTrace = lines.filter((entry) => entry.trace_id === CALLER_TRACE_ID)
    assert.sameMembers(
      ofCallersTrace.map((entry) => entry.msg),
      ['request completed', 'mail delivery failed'],
      server.output()
    )
    // Each line has its own fields: the request line's never leak into a later one.
    const mailLine = ofCallersTrace.find((entry) => entry.msg === 'mail delivery failed')
    assert.notProperty(mailLine, 'status')
    const spanIds = new Set(ofCallersTrace.map((entry) => entry.span_id))
    assert.equal(spanIds.size, 1)
    assert.match([...spanIds][0], /^[0-9a-f]{16}$/)
    assert.notEqual([...spanIds][0], CALLER_SPAN_ID)

    const others = lines.filter((entry) => entry.status === 401)
    for (const entry of others) {
      assert.match(entry.trace_id, /^[0-9a-f]{32}$/)
      assert.notEqual(entry.trace_id, CALLER_TRACE_ID)
      assert.match(entry.span_id, /^[0-9a-f]{16}$/)
    }
    assert.equal(new Set(others.map((entry) => entry.trace_id)).size, others.length)
  }).timeout(300_000)
})
