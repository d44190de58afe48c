/*
| Model instances from rows read by the one-statement authentication reads
| (app/platform/direct_query.ts), without the query builder's hydration cost.
*/
import type { LucidModel } from '@adonisjs/lucid/types/model'

/**
 * A persisted model instance from a row of its columns, as `$createFromAdapterResult`
 * makes it but without its deep copy of the attributes into `$original` (lodash
 * merge walks every luxon DateTime: a third of the hydration cost on the Portal hot
 * path). The copy here is shallow, which is the same thing for models whose columns
 * are all scalars or DateTimes (immutable), as User and Merchant are.
 */
export function hydrate<Model extends LucidModel>(
  model: Model,
  row: Record<string, unknown>
): InstanceType<Model> {
  model.boot()
  const instance = new model() as InstanceType<Model>
  instance.$consumeAdapterResult(row)
  instance.$original = { ...instance.$attributes }
  instance.$setOptionsAndTrx(undefined)
  instance.$isPersisted = true
  instance.$isLocal = false
  return instance
}
