/*
| The base of this service's transformers: a resource in, its contract shape out, at
| once. `transform` shapes one resource or each of a list through `toObject`, whose
| return type is the shape's (app/shapes), and gives plain objects to `respond`.
|
| Not the framework's BaseTransformer: its serializer resolves every item through the
| container and copies each shaped object key by key, asynchronously. On a page of
| 100 history items that was most of what the server allocated, and the collections
| it caused paused the event loop for other merchants' requests. Nothing here needs
| what that pipeline adds (dependency injection into `toObject`, lazy relations,
| variants, depth limits).
*/
type Transformer = abstract new (resource: any) => { toObject(): unknown }
type ResourceOf<Self extends Transformer> = ConstructorParameters<Self>[0]
type ShapeOf<Self extends Transformer> = ReturnType<InstanceType<Self>['toObject']>

export abstract class PortalTransformer<Resource> {
  constructor(protected readonly resource: Resource) {}

  abstract toObject(): unknown

  /** The shape of each resource of a list, in order. */
  static transform<Self extends Transformer>(
    this: Self,
    resources: ResourceOf<Self>[]
  ): ShapeOf<Self>[]
  /** The shape of one resource. */
  static transform<Self extends Transformer>(this: Self, resource: ResourceOf<Self>): ShapeOf<Self>
  static transform(this: new (resource: unknown) => { toObject(): unknown }, data: unknown) {
    return Array.isArray(data)
      ? data.map((resource) => new this(resource).toObject())
      : new this(data).toObject()
  }
}
