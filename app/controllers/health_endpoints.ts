/* decisions.md §6: liveness and readiness, the endpoints of HealthController. */
import { Alive, NotReady, Ready } from '#shapes/health'
import { endpointsOf } from '#http/endpoint'
import { openStack } from '#http/stacks'

export const healthEndpoints = endpointsOf({
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
  },
})
