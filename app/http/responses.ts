/*
| The success envelope, once: { success: true, message, data } and, for lists,
| `meta` { current_page, per_page, total, last_page }. Resources go through their
| transformer (an explicit pick list), never straight from a model.
*/
import type { HttpContext } from '@adonisjs/core/http'
import { BaseSerializer } from '@adonisjs/core/transformers'
import type { PageMeta } from '#shapes/envelope'

class EnvelopeSerializer extends BaseSerializer<{}> {
  wrap = undefined
  definePaginationMetaData(metaData: unknown) {
    return metaData as Record<string, unknown>
  }
}

const serializer = new EnvelopeSerializer()

export function pageMeta(page: number, perPage: number, total: number): PageMeta {
  return {
    current_page: page,
    per_page: perPage,
    total,
    last_page: Math.max(1, Math.ceil(total / perPage)),
  }
}

export async function respond(
  ctx: HttpContext,
  message: string,
  data: unknown = null,
  options: { status?: number; meta?: Record<string, unknown> } = {}
) {
  const body: Record<string, unknown> = {
    success: true,
    message,
    // The serializer refuses null; message-only answers carry `data: null`.
    data:
      data === null || data === undefined
        ? null
        : await serializer.serializeWithoutWrapping(data, ctx.containerResolver),
  }
  if (options.meta) body.meta = options.meta
  ctx.response.status(options.status ?? 200).send(body)
}

export function noContent(ctx: HttpContext) {
  ctx.response.status(204).send('')
}
