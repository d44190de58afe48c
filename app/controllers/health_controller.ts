import type { HttpContext } from '@adonisjs/core/http'
import { healthChecks } from '#start/health'
import { isDraining } from '#support/drain'
import type { Alive, Readiness } from '#shapes/health'

/** Liveness (the process answers) and readiness (database reachable, schema current). */
export default class HealthController {
  live(_input: undefined, _actor: undefined, { response }: HttpContext) {
    response.ok({ status: 'ok' } satisfies Alive)
  }

  async ready(_input: undefined, _actor: undefined, { response }: HttpContext) {
    // Shutting down: out of rotation while requests still get served (app/support/drain.ts).
    if (isDraining()) {
      response.status(503).send({ status: 'draining', checks: [] } satisfies Readiness)
      return
    }
    const report = await healthChecks.run().catch(() => null)
    const healthy = report?.isHealthy === true
    const checks = (report?.checks ?? []).map((check) => ({
      name: check.name,
      status: check.status,
    }))
    response
      .status(healthy ? 200 : 503)
      .send({ status: healthy ? 'ok' : 'unavailable', checks } satisfies Readiness)
  }
}
