/*
| The base of this service's transformers: BaseTransformer, with `transform`
| overridden to build its Item or Collection (public classes of
| @adonisjs/core/transformers) without the framework's per-call `new RuntimeException()`.
| That error only serves to report an undefined resource with the caller's stack, and
| capturing a stack on every response was a visible share of a read's CPU. An
| undefined or Maybe-wrapped resource still goes through the framework's own
| `transform`, error included.
*/
import { RuntimeException } from '@adonisjs/core/exceptions'
import { BaseTransformer, Collection, Item, Maybe } from '@adonisjs/core/transformers'

// Never thrown: Item throws it only for an undefined resource, which is not built here.
const NO_UNDEFINED_RESOURCE = new RuntimeException('An undefined resource reached a transformer.')

type TransformerClass = new (resource: any) => any

export abstract class PortalTransformer<Resource> extends BaseTransformer<Resource> {
  static transform<Self extends TransformerClass>(
    this: Self,
    data: ConstructorParameters<Self>[0][]
  ): Collection<InstanceType<Self>, 1, 'toObject'>
  static transform<Self extends TransformerClass>(
    this: Self,
    data: ConstructorParameters<Self>[0]
  ): Item<InstanceType<Self>, 1, 'toObject'>
  static transform<Self extends TransformerClass>(
    this: Self,
    data: ConstructorParameters<Self>[0] | null
  ): Item<InstanceType<Self>, 1, 'toObject'> | null
  static transform<Self extends TransformerClass>(this: Self, data: unknown) {
    if (data === undefined || data instanceof Maybe) return super.transform(data)
    if (data === null) return null
    // What the framework's `transform` builds for a resource without further
    // constructor arguments, with the shared error instead of a new one.
    if (Array.isArray(data)) {
      return new Collection([data, []], this, 1, 'toObject', NO_UNDEFINED_RESOURCE)
    }
    return new Item([data, []], this, 1, 'toObject', NO_UNDEFINED_RESOURCE)
  }
}
