/*
| A server middleware called directly, as one instance, instead of through the
| container. The server resolves each server middleware through the container on
| every request (a new instance, its method's dependencies and a promise per step);
| a middleware that keeps no state between requests needs none of that.
|
| The framework offers no way to register an instance, so this rewrites `handle` of
| the middleware's entry in the list the server returns from getMiddlewareList(),
| before the server boots: the entries are the objects the server then freezes into
| its middleware stack, and the stack calls `entry.handle(resolver, ctx, next)`
| (app/platform/README.md; tests/unit/platform_internals.spec.ts).
*/
import server from '@adonisjs/core/services/server'
import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'

type ServerMiddlewareEntry = ReturnType<typeof server.getMiddlewareList>[number]

const rewritten = new WeakSet<ServerMiddlewareEntry['handle']>()

/**
 * Has the server call `middleware` directly for the server middleware registered
 * with `reference` (the lazy import given to `server.use`). Throws when the server
 * lists no such entry: the framework changed how it keeps them.
 */
export function callServerMiddlewareDirectly(
  reference: unknown,
  middleware: { handle(ctx: HttpContext, next: NextFn): unknown }
) {
  const entries = server.getMiddlewareList().filter((entry) => entry.reference === reference)
  if (entries.length === 0) {
    throw new Error('server middleware not found in getMiddlewareList(): the framework changed')
  }
  for (const entry of entries) {
    entry.handle = (_resolver, ctx, next) => middleware.handle(ctx, next)
    rewritten.add(entry.handle)
  }
}

/** Whether the server's middleware stack calls this entry directly (its upgrade check). */
export function isCalledDirectly(entry: ServerMiddlewareEntry): boolean {
  return rewritten.has(entry.handle)
}
