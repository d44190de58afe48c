/*
| Distributed tracing, so operators follow one user action from the Portal backend into
| this service. With OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
| set, the server exports OpenTelemetry spans over OTLP: one server span per request,
| continuing the caller's W3C `traceparent`, with its SQL statements (pg) and its mails
| (app/services/mailer.ts) as children.
| Everything else follows the SDK's own OTEL_* variables: OTEL_SERVICE_NAME,
| OTEL_TRACES_SAMPLER(_ARG), OTEL_EXPORTER_OTLP_PROTOCOL, _HEADERS, _TIMEOUT,
| OTEL_PROPAGATORS, OTEL_BSP_*, OTEL_SDK_DISABLED, OTEL_LOG_LEVEL (docs/operations.md › Tracing).
| Two things callers send are not believed: a caller's unsampled flag does not
| switch export off (samplerFrom), and forwarding headers give `client.address` only
| through TRUSTED_PROXIES.
|
| bin/server.ts calls startTracing() before it imports anything else, because the
| instrumentations patch node:http and pg when those are loaded. Without an endpoint
| nothing of the SDK is even imported: tracing off costs nothing. Ace commands and
| the test runner are not traced.
*/
import type { IncomingMessage } from 'node:http'
import { createRequire, syncBuiltinESMExports } from 'node:module'
import type { Sampler } from '@opentelemetry/api'
import { clientAddressOf, trustProxyFrom } from '#http/trusted_proxies'

const SERVICE_NAME = 'merchant-portal'

let shutdown: (() => Promise<void>) | undefined

/** Whether the environment asks for spans to be exported. */
export function tracingRequested(environment: NodeJS.ProcessEnv = process.env): boolean {
  const endpoint =
    environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || environment.OTEL_EXPORTER_OTLP_ENDPOINT
  const disabled = environment.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true'
  const noExporter = environment.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none'
  return Boolean(endpoint?.trim()) && !disabled && !noExporter
}

/** OTEL_SERVICE_NAME, or `service.name` in OTEL_RESOURCE_ATTRIBUTES, wins over ours. */
function serviceNamed(environment: NodeJS.ProcessEnv): boolean {
  if (environment.OTEL_SERVICE_NAME?.trim()) return true
  return (environment.OTEL_RESOURCE_ATTRIBUTES ?? '')
    .split(',')
    .some((pair) => pair.split('=')[0]?.trim() === 'service.name')
}

/**
 * OTEL_TRACES_SAMPLER (and _ARG), read as the SDK reads them, with one difference:
 * a caller's unsampled `traceparent` (flags `-00`) does not switch export off. The
 * parent-based samplers follow a caller's sampled flag, and decide a request whose
 * caller did not sample it as one that starts a trace here: with the default, it
 * is exported, errors included (docs/operations.md › Tracing › Sampling).
 */
async function samplerFrom(environment: NodeJS.ProcessEnv): Promise<Sampler> {
  const { diag } = await import('@opentelemetry/api')
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } =
    await import('@opentelemetry/sdk-trace')
  const named = environment.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || DEFAULT_SAMPLER
  const name = SAMPLERS.includes(named) ? named : DEFAULT_SAMPLER
  if (name !== named) diag.error(`unknown OTEL_TRACES_SAMPLER "${named}", using ${name}`)
  let ownDecision: Sampler
  if (name.endsWith('traceidratio')) {
    const ratio = Number(environment.OTEL_TRACES_SAMPLER_ARG?.trim() || Number.NaN)
    const valid = ratio >= 0 && ratio <= 1
    if (!valid) diag.error('OTEL_TRACES_SAMPLER_ARG is not a ratio in [0, 1]; using 1')
    ownDecision = new TraceIdRatioBasedSampler(valid ? ratio : 1)
  } else {
    ownDecision = name.endsWith('always_off') ? new AlwaysOffSampler() : new AlwaysOnSampler()
  }
  if (!name.startsWith('parentbased_')) return ownDecision
  return new ParentBasedSampler({ root: ownDecision, remoteParentNotSampled: ownDecision })
}

const DEFAULT_SAMPLER = 'parentbased_always_on'
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
]

/** Starts the OpenTelemetry SDK if tracingRequested(); otherwise does nothing. */
export async function startTracing(environment: NodeJS.ProcessEnv = process.env) {
  // OTEL_* may come from .env like every other variable: loading it puts its values
  // into process.env (the process's own environment wins). An invalid variable is
  // reported by the boot that follows, as without tracing.
  await import('#start/env').catch(() => {})
  if (shutdown || !tracingRequested(environment)) return
  const [api, { NodeSDK }, { HttpInstrumentation }, { PgInstrumentation }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
  ])
  // A failing export (collector down, wrong endpoint) is reported on stderr even when
  // OTEL_LOG_LEVEL is unset; the SDK's default would be silence.
  if (!environment.OTEL_LOG_LEVEL) {
    api.diag.setLogger(new api.DiagConsoleLogger(), api.DiagLogLevel.ERROR)
  }
  // The client address by the rule of rate limits and audit records: forwarding
  // headers count only through TRUSTED_PROXIES. Compiled on the first request: an
  // invalid value stops the boot before (config/app.ts compiles it too).
  let trustProxy: ReturnType<typeof trustProxyFrom> | undefined
  const clientAddress = (request: IncomingMessage) =>
    clientAddressOf(request, (trustProxy ??= trustProxyFrom(environment.TRUSTED_PROXIES)))
  const sdk = new NodeSDK({
    serviceName: serviceNamed(environment) ? undefined : SERVICE_NAME,
    sampler: await samplerFrom(environment),
    instrumentations: [
      new HttpInstrumentation({
        // Load balancer probes would be most of the traces and none of the interest.
        ignoreIncomingRequestHook: (request) => request.url?.startsWith('/health/') ?? false,
        // Path only, as in the request log: query strings can carry one-time proofs.
        // The instrumentation's own `client.address` believes any Forwarded or
        // X-Forwarded-For header: replaced by the address the service trusts.
        startIncomingSpanHook: (request) => ({
          'url.query': undefined,
          'client.address': clientAddress(request as IncomingMessage),
        }),
      }),
      // Statements of a request (or of a mail it sends); none of the pool's own upkeep.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
    // Traces only: metrics are Prometheus' (METRICS_PORT), logs go to stdout.
    metricReaders: [],
    logRecordProcessors: [],
  })
  sdk.start()
  // ESM imports of builtins never pass through require(), where the instrumentation
  // patches them: require them once now, and let the ESM bindings see the patched functions.
  const require = createRequire(import.meta.url)
  require('node:http')
  require('node:https')
  syncBuiltinESMExports()
  // Spans that cannot be delivered are lost, said on stderr; the shutdown goes on (exit 0).
  shutdown = () =>
    sdk.shutdown().catch((error) => api.diag.error('spans not exported at shutdown', error))
}

/** Exports the spans still buffered and stops the SDK (graceful shutdown); never throws. */
export async function stopTracing() {
  const stop = shutdown
  shutdown = undefined
  await stop?.()
}
