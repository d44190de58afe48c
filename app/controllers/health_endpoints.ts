/* decisions.md §6: liveness and readiness, the endpoints of HealthController. */
import { schema, type Static } from '#openapi/json_schema'
import { endpointsOf, openStack } from '#http/endpoint'

const checkList = () =>
  schema.array(schema.object({ name: schema.string(), status: schema.string() }))

/** Liveness, Readiness and its refusal, as HealthController answers them. */
export const Alive = schema.object({ status: schema.const('ok') })
export type Alive = Static<typeof Alive>
export const Ready = schema.object({ status: schema.const('ok'), checks: checkList() })
export const NotReady = schema.object({
  status: schema.enum(['unavailable', 'draining'], {
    description:
      '`draining` while the process shuts down (no checks run: docs/operations.md), `unavailable` when a check failed.',
  }),
  checks: checkList(),
})
export type Readiness = Static<typeof Ready> | Static<typeof NotReady>

const HealthController = () => import('#controllers/health_controller')

export const healthEndpoints = endpointsOf(HealthController, {
  live: {
    method: 'get',
    path: '/health/live',
    name: 'health.live',
    stack: openStack(),
    operationId: 'healthLive',
    tag: 'Service',
    summary: 'Liveness',
    description: 'The process answers.',
    envelope: false,
    responses: {
      200: { description: 'Alive.', schema: Alive },
    },
    cacheControl: 'no-store',
  },
  ready: {
    method: 'get',
    path: '/health/ready',
    name: 'health.ready',
    stack: openStack(),
    operationId: 'healthReady',
    tag: 'Service',
    summary: 'Readiness',
    description: 'Database reachable and migrations current (and Redis when configured).',
    envelope: false,
    responses: {
      200: {
        description: 'Ready.',
        schema: Ready,
      },
      503: {
        description: 'Not ready.',
        schema: NotReady,
      },
    },
    cacheControl: 'no-store',
  },
})
