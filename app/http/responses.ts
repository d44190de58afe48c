/*
| The success envelope, once: { success: true, message, data } and, for lists,
| `meta` { current_page, per_page, total, last_page }. start/register_endpoint.ts
| sends it with what an endpoint's declaration names (its message, and its
| transformer's output: an explicit pick list, app/transformers, never a model).
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
  status: number,
  message: string,
  data: unknown,
  meta?: Record<string, unknown>
) {
  const body: Record<string, unknown> = {
    success: true,
    message,
    // Message-only answers carry `data: null`.
    data: data ?? null,
  }
  if (meta) body.meta = meta
  ctx.response.status(status).send(body)
}

export function noContent(ctx: HttpContext) {
  ctx.response.status(204).send('')
}
