/*
| The W3C `traceparent` header as app/support/trace_context.ts reads it when tracing
| export is off (issue 22): a valid one is continued, anything else starts a new trace.
| start/tracing.ts decides when the SDK runs instead.
*/
import { test } from '@japa/runner'
import { continuedTraceId, requestTraceFields } from '#support/trace_context'
import { tracingRequested } from '#start/tracing'

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const SPAN_ID = '00f067aa0ba902b7'

test.group('Trace context: traceparent', () => {
  test('a valid version-00 traceparent is continued, sampled or not', ({ assert }) => {
    assert.equal(continuedTraceId(`00-${TRACE_ID}-${SPAN_ID}-01`), TRACE_ID)
    assert.equal(continuedTraceId(`00-${TRACE_ID}-${SPAN_ID}-00`), TRACE_ID)
  })

  test('a later version is read by its version-00 fields and may carry more', ({ assert }) => {
    assert.equal(continuedTraceId(`cc-${TRACE_ID}-${SPAN_ID}-01`), TRACE_ID)
    assert.equal(continuedTraceId(`cc-${TRACE_ID}-${SPAN_ID}-01-future`), TRACE_ID)
  })

  test('anything else is ignored: absent, repeated or malformed', ({ assert }) => {
    for (const header of [
      undefined,
      '',
      'garbage',
      [`00-${TRACE_ID}-${SPAN_ID}-01`, `00-${TRACE_ID}-${SPAN_ID}-01`],
      `00-${TRACE_ID}-${SPAN_ID}-01, 00-${TRACE_ID}-${SPAN_ID}-01`,
      `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`,
      `00-${'0'.repeat(32)}-${SPAN_ID}-01`,
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
      `00-${TRACE_ID}-${SPAN_ID}-01-trailing`,
      `ff-${TRACE_ID}-${SPAN_ID}-01`,
      `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`,
      `00-${TRACE_ID}-${SPAN_ID}-1`,
      ` 00-${TRACE_ID}-${SPAN_ID}-01`,
    ]) {
      assert.isNull(continuedTraceId(header), JSON.stringify(header))
    }
  })

  test('a request continues the trace under a span id of its own, or starts one', ({ assert }) => {
    const continued = requestTraceFields(`00-${TRACE_ID}-${SPAN_ID}-01`)
    assert.equal(continued.trace_id, TRACE_ID)
    assert.match(continued.span_id, /^[0-9a-f]{16}$/)
    assert.notEqual(continued.span_id, SPAN_ID)

    const started = requestTraceFields('garbage')
    assert.match(started.trace_id, /^[0-9a-f]{32}$/)
    assert.notEqual(started.trace_id, requestTraceFields(undefined).trace_id)
  })
})

test.group('Trace context: when spans are exported', () => {
  test('only with an OTLP endpoint, unless the SDK or the trace exporter is switched off', ({
    assert,
  }) => {
    const endpoint = 'http://collector:4318'
    assert.isFalse(tracingRequested({}))
    assert.isFalse(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }))
    assert.isTrue(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }))
    assert.isTrue(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces` }))
    assert.isFalse(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'true' })
    )
    assert.isFalse(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_EXPORTER: 'none' })
    )
  })
})
