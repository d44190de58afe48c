/*
| Operator metrics (issue 14 › Metrics for operators; decisions.md §3, §6): GET /metrics
| on its own listener and never on the API port; requests per route name or pattern
| and status; refusals per limit name; pool usage; mail failures; credential
| deliveries; labels never carry what a caller sent. (The production server opening
| the listener from METRICS_PORT is proven by the cluster suite, tests/cluster.)
*/
import { test } from '@japa/runner'
import { useMailTransport } from '#tests/helpers/mail'
import { createServer } from 'node:net'
import http from 'node:http'
import { hostname } from 'node:os'
import { runCommand } from '#tests/helpers/foundation'
import AuthPrune from '../../../commands/auth_prune.js'
import router from '@adonisjs/core/services/router'
import { resetState, advanceClock } from '#tests/helpers/database'
import { overrideEnv } from '#tests/helpers/env'
import { PORTAL_ORIGIN, signedInMember } from '#tests/helpers/portal'
import { issueThroughApi } from '#tests/helpers/machine'
import { registry } from '#support/operator_metrics'
import { metricsText, startMetricsServer } from '#platform/metrics_server'
import { settleBackgroundDeliveries } from '#services/mailer'
import { route } from '#tests/helpers/routes'
import { passwordHashQueue } from '#config/hash'
import { HashAbandoned, HashQueueFull } from '#platform/hash_refusal'

/** The value of one series in an exposition (`series` as written there, labels included). */
function seriesIn(text: string, series: string) {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  if (!line) throw new Error(`no series ${series} in the exposition`)
  return Number(line.slice(series.length + 1))
}

/** Current value of one series of a metric (0 when absent). */
async function valueOf(name: string, labels: Record<string, string> = {}) {
  const metric = registry.getSingleMetric(name)
  if (!metric) throw new Error(`metric ${name} is not registered`)
  const snapshot = await metric.get()
  const values = snapshot.values as Array<{
    value: number
    labels: Record<string, string | number>
    metricName?: string
  }>
  const wanted = Object.entries(labels)
  return (
    values
      // A histogram's series are named <name>_bucket/_sum/_count: count its observations.
      .filter((value) => [undefined, name, `${name}_count`].includes(value.metricName))
      .filter((value) => wanted.every(([key, expected]) => String(value.labels[key]) === expected))
      .reduce((sum, value) => sum + value.value, 0)
  )
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })
}

test.group('Operator metrics', (group) => {
  group.each.setup(() => resetState())

  test('the metrics listener answers GET /metrics in the Prometheus format and nothing else', async ({
    assert,
    cleanup,
  }) => {
    const listener = await startMetricsServer(0, '127.0.0.1')
    cleanup(() => listener.close())
    const response = await fetch(`http://127.0.0.1:${listener.port}/metrics`)
    assert.equal(response.status, 200)
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
    const body = await response.text()
    for (const name of [
      'portal_http_requests_total',
      'portal_http_request_duration_seconds',
      'portal_rate_limit_refusals_total',
      'portal_db_pool_connections',
      'portal_db_pool_acquire_wait_seconds',
      'portal_mail_send_failures_total',
      'portal_credential_deliveries_total',
      'portal_import_rows_total',
      'portal_history_purge_rows_total',
      'portal_lane_tasks',
      'portal_lane_wait_seconds',
      'portal_lane_refusals_total',
      'portal_password_hash_tasks',
      'portal_password_hash_refusals_total',
      'portal_password_hashes_abandoned_total',
      'process_cpu_seconds_total',
    ]) {
      assert.include(body, `# TYPE ${name} `)
    }
    for (const path of ['/', '/api/v1/portal/me', '/metrics/x']) {
      const other = await fetch(`http://127.0.0.1:${listener.port}${path}`)
      assert.equal(other.status, 404, path)
    }
    const post = await fetch(`http://127.0.0.1:${listener.port}/metrics`, { method: 'POST' })
    assert.equal(post.status, 404)
  })

  test('the API port does not serve /metrics (404 NOT_FOUND envelope)', async ({ client }) => {
    const response = await client.get('/metrics')
    response.assertStatus(404)
    response.assertBodyContains({ error_code: 'NOT_FOUND' })
  })

  test('requests are counted per route (name or pattern) and status, never per raw path or id', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    // The label is the route's name (or its pattern while unnamed).
    const matched = router.match(route('team.members.destroy', { member: 1 }), 'DELETE', false)!
    const pattern = matched.route.name ?? matched.route.pattern
    const before = await valueOf('portal_http_requests_total', {
      route: pattern,
      method: 'DELETE',
      status: '404',
    })
    await client
      .delete(route('team.members.destroy', { member: 987654321 }))
      .header('Authorization', admin.bearer)
    await client.get('/api/v1/no-such-route-SECRETVALUE-42').header('Authorization', admin.bearer)

    assert.equal(
      await valueOf('portal_http_requests_total', {
        route: pattern,
        method: 'DELETE',
        status: '404',
      }),
      before + 1
    )
    assert.isAtLeast(
      await valueOf('portal_http_request_duration_seconds', { route: pattern, status: '404' }),
      0
    )
    assert.isAtLeast(
      await valueOf('portal_http_requests_total', { route: 'unmatched', status: '404' }),
      1
    )
    const text = await metricsText()
    assert.notInclude(text, '987654321')
    assert.notInclude(text, 'SECRETVALUE')
    assert.notInclude(text, admin.user.email)
  })

  test('a 429 counts one refusal under the limit name', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin)
    const before = await valueOf('portal_rate_limit_refusals_total', {
      limit: 'credentialConsume',
    })
    const statuses: number[] = []
    for (let attempt = 0; attempt < 11; attempt++) {
      const response = await client
        .post(route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }))
        .header('Authorization', admin.bearer)
        .json({ current_password: 'not the password' })
      statuses.push(response.status())
    }
    assert.deepEqual(statuses, [...Array(10).fill(422), 429])
    assert.equal(
      await valueOf('portal_rate_limit_refusals_total', { limit: 'credentialConsume' }),
      before + 1
    )
    assert.notInclude(await metricsText(), issued.delivery.id)
  })

  test('credential deliveries created, consumed and expired are counted', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const created = await valueOf('portal_credential_deliveries_total', { event: 'created' })
    const consumed = await valueOf('portal_credential_deliveries_total', { event: 'consumed' })
    const expired = await valueOf('portal_credential_deliveries_total', { event: 'expired' })

    const first = await issueThroughApi(client, admin)
    await issueThroughApi(client, admin)
    const consume = await client
      .post(route('merchant.credential_deliveries.consume', { delivery: first.delivery.id }))
      .header('Authorization', admin.bearer)
      .json({ current_password: admin.password })
    consume.assertStatus(200)
    advanceClock(6 * 60_000)
    const list = await client
      .get(route('merchant.machine_clients.index'))
      .header('Authorization', admin.bearer)
    list.assertStatus(200)

    assert.equal(
      await valueOf('portal_credential_deliveries_total', { event: 'created' }),
      created + 2
    )
    assert.equal(
      await valueOf('portal_credential_deliveries_total', { event: 'consumed' }),
      consumed + 1
    )
    assert.equal(
      await valueOf('portal_credential_deliveries_total', { event: 'expired' }),
      expired + 1
    )
  })

  test('a mail the transport fails to send is counted by mail class and transport', async ({
    client,
    assert,
    cleanup,
  }) => {
    const port = await closedPort()
    cleanup(
      await useMailTransport({
        MAIL_MAILER: 'smtp',
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: port,
        PORTAL_URL: PORTAL_ORIGIN,
      })
    )
    const { bearer } = await signedInMember()
    const before = await valueOf('portal_mail_send_failures_total', { transport: 'smtp' })
    const response = await client
      .patch(route('profile.update'))
      .header('Authorization', bearer)
      .json({ email: 'unlucky@example.test' })
    response.assertStatus(200)
    await settleBackgroundDeliveries()
    assert.equal(
      await valueOf('portal_mail_send_failures_total', { transport: 'smtp' }),
      before + 1
    )
    assert.notInclude(await metricsText(), 'unlucky@example.test')
  })

  test('event-loop delay: its p99 and max since the previous scrape, in seconds', async ({
    assert,
    cleanup,
  }) => {
    const listener = await startMetricsServer(0, '127.0.0.1')
    cleanup(() => listener.close())
    const scrape = async () => {
      const response = await fetch(`http://127.0.0.1:${listener.port}/metrics`)
      const body = await response.text()
      const read = (name: string) => {
        assert.include(body, `# TYPE ${name} gauge`)
        return Number(body.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1])
      }
      return {
        p99: read('nodejs_eventloop_lag_p99_seconds'),
        max: read('nodejs_eventloop_lag_max_seconds'),
      }
    }
    await scrape()
    // A scrape resets the delay histogram, and its first tick after a reset only restarts
    // the measurement: let it tick before blocking (a block right after a reset is lost).
    await new Promise((resolve) => setTimeout(resolve, 30))
    // The server runs in this process: block its event loop as a CPU-bound request would.
    const until = performance.now() + 300
    while (performance.now() < until) {}
    // The late tick of the delay monitor is recorded on the loop's next turns.
    await new Promise((resolve) => setTimeout(resolve, 50))

    const blocked = await scrape()
    assert.isAtLeast(blocked.max, 0.25)
    assert.isAtLeast(blocked.p99, 0)
    assert.isAtMost(blocked.p99, blocked.max)
    // Each scrape starts a new window: the block is not reported twice.
    const next = await scrape()
    assert.isBelow(next.max, blocked.max)
  })

  test('the password hash queue is on /metrics: hashes running and queued, refusals by reason, hashes abandoned', async ({
    assert,
    cleanup,
  }) => {
    cleanup(overrideEnv({ PASSWORD_HASH_QUEUE: 100, PASSWORD_HASH_MAX_WAIT_MS: 60_000 }))
    const refusedOnArrival = 'portal_password_hash_refusals_total{reason="wait_too_long"}'
    const abandoned = 'portal_password_hashes_abandoned_total'
    const before = await metricsText()
    // Every thread's place held, so that the next hash waits.
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const holders = Array.from({ length: passwordHashQueue.slots }, (_, slot) =>
      passwordHashQueue.run(`test:metrics:${slot}`, () => released)
    )
    cleanup(async () => {
      release()
      await Promise.all(holders)
    })
    const clientGone = new AbortController()
    const waiting = passwordHashQueue.run('test:metrics:waiting', async () => {}, clientGone.signal)

    const busy = await metricsText()
    assert.equal(
      seriesIn(busy, 'portal_password_hash_tasks{state="running"}'),
      passwordHashQueue.slots
    )
    assert.equal(seriesIn(busy, 'portal_password_hash_tasks{state="queued"}'), 1)

    clientGone.abort()
    await assert.rejects(() => waiting, HashAbandoned)
    // Any wait is too long now: the next hash is refused on arrival.
    const restoreWaitBound = overrideEnv({ PASSWORD_HASH_MAX_WAIT_MS: 1 })
    try {
      await assert.rejects(
        () => passwordHashQueue.run('test:metrics:late', async () => {}),
        HashQueueFull
      )
    } finally {
      restoreWaitBound()
    }

    const after = await metricsText()
    assert.equal(seriesIn(after, 'portal_password_hash_tasks{state="queued"}'), 0)
    assert.equal(seriesIn(after, abandoned) - seriesIn(before, abandoned), 1)
    assert.equal(seriesIn(after, refusedOnArrival) - seriesIn(before, refusedOnArrival), 1)
    assert.match(after, /^# TYPE portal_password_hash_refusals_total counter$/m)
  })

  test('database pool usage is sampled at scrape time', async ({ assert }) => {
    const text = await metricsText()
    assert.match(text, /portal_db_pool_connections\{connection="postgres",state="used"\} \d+/)
    assert.match(text, /portal_db_pool_connections\{connection="postgres",state="free"\} \d+/)
    assert.match(
      text,
      /portal_db_pool_connections\{connection="postgres",state="pending_acquires"\} \d+/
    )
    assert.match(text, /portal_db_pool_max_connections\{connection="postgres"\} 10/)
    assert.isAbove(await valueOf('portal_db_pool_acquire_wait_seconds', {}), 0)
  })

  test('an operator command pushes its metrics to the Pushgateway when one is configured', async ({
    assert,
    cleanup,
  }) => {
    const received: Array<{ method?: string; url?: string; body: string }> = []
    const gateway = http.createServer((request, response) => {
      let body = ''
      request.on('data', (chunk) => (body += chunk))
      request.on('end', () => {
        received.push({ method: request.method, url: request.url, body })
        response.writeHead(200).end()
      })
    })
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve))
    cleanup(() => new Promise<void>((resolve) => gateway.close(() => resolve())))
    const { port } = gateway.address() as { port: number }
    cleanup(overrideEnv({ METRICS_PUSHGATEWAY_URL: `http://127.0.0.1:${port}` }))

    const result = await runCommand(AuthPrune, [])
    assert.equal(result.exitCode, 0)
    assert.lengthOf(received, 1)
    assert.equal(received[0].method, 'POST')
    assert.equal(
      received[0].url,
      `/metrics/job/merchant_portal_auth_prune/instance/${encodeURIComponent(hostname())}`
    )
    assert.match(
      received[0].body,
      /portal_operator_job_last_run_timestamp_seconds\{job="auth_prune",outcome="success"\} \d/
    )
    assert.include(received[0].body, 'portal_credential_deliveries_total')
  })

  test('an unreachable Pushgateway is a warning on standard error; standard output stays one JSON object', async ({
    assert,
    cleanup,
  }) => {
    // A port nothing listens on: a server closed right after it was bound.
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as { port: number }
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    cleanup(overrideEnv({ METRICS_PUSHGATEWAY_URL: `http://127.0.0.1:${port}` }))

    const result = await runCommand(AuthPrune, [])
    assert.equal(result.exitCode, 0)
    assert.lengthOf(result.stdout, 1)
    assert.isObject(result.json())
    assert.match(result.stderr.join('\n'), /warning: metrics not pushed to the Pushgateway/)
  })
})
