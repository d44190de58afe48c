/* decisions.md §6: liveness and readiness, the endpoints of HealthController. */
import { schema } from '#openapi/json_schema'
import { endpointsOf, openStack } from '#http/endpoint'

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
      200: { description: 'Alive.', schema: schema.object({ status: schema.const('ok') }) },
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
        schema: schema.object({
          status: schema.const('ok'),
          checks: schema.array(schema.object({ name: schema.string(), status: schema.string() })),
        }),
      },
      503: {
        description: 'Not ready.',
        schema: schema.object({
          status: schema.const('unavailable'),
          checks: schema.array(schema.object({ name: schema.string(), status: schema.string() })),
        }),
      },
    },
    cacheControl: 'no-store',
  },
})
