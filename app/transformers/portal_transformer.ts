/*
| The base of this service's transformers: BaseTransformer, with `transform` building
| its Item or Collection without the framework's per-call `new RuntimeException()`.
| That error only serves to report an undefined resource with the caller's stack, and
| capturing a stack on every response was a visible share of a read's CPU. An
| undefined or Maybe-wrapped resource still goes through the framework's own
| `transform`, error included.
*/
import { RuntimeException } from '@adonisjs/core/exceptions'
import { BaseTransformer, Collection, Item, Maybe } from '@adonisjs/core/transformers'

export abstract class PortalTransformer<Resource> extends BaseTransformer<Resource> {}

// Never thrown: Item throws it only for an undefined resource, which is not built here.
const NO_UNDEFINED_RESOURCE = new RuntimeException('An undefined resource reached a transformer.')

function transformWithoutStackCapture(this: any, data: unknown, ...rest: unknown[]) {
  if (data === undefined || data instanceof Maybe) {
    return (BaseTransformer.transform as Function).call(this, data, ...rest)
  }
  if (data === null) return null
  if (Array.isArray(data)) {
    return new Collection([data, rest], this, 1, 'toObject', NO_UNDEFINED_RESOURCE)
  }
  return new Item([data, rest], this, 1, 'toObject', NO_UNDEFINED_RESOURCE)
}

PortalTransformer.transform = transformWithoutStackCapture as typeof BaseTransformer.transform
