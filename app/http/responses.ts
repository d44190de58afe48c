/*
| The success envelope, once: { success: true, message, data } and, for lists,
| `meta` { current_page, per_page, total, last_page }. Resources go through their
| transformer (an explicit pick list, app/transformers), never straight from a model.
*/
import type { HttpContext } from '@adonisjs/core/http'
import type { PageMeta } from '#shapes/envelope'

export function pageMeta(page: number, perPage: number, total: number): PageMeta {
  return {
    current_page: page,
    per_page: perPage,
    total,
    last_page: Math.max(1, Math.ceil(total / perPage)),
  }
}

export function respond(
  ctx: HttpContext,
  message: string,
  data: unknown = null,
  options: { status?: number; meta?: Record<string, unknown> } = {}
) {
  const body: Record<string, unknown> = {
    success: true,
    message,
    // Message-only answers carry `data: null`.
    data: data ?? null,
  }
  if (options.meta) body.meta = options.meta
  ctx.response.status(options.status ?? 200).send(body)
}

export function noContent(ctx: HttpContext) {
  ctx.response.status(204).send('')
}
