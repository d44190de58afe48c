/*
| decisions.md §6: the answers of liveness and readiness (no envelope), each declared
| once as its JSON Schema (inline in the document) with its TypeScript type derived
| from it, which HealthController answers.
*/
import { schema, type Static } from '#openapi/json_schema'

const checkList = () =>
  schema.array(schema.object({ name: schema.string(), status: schema.string() }))

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
