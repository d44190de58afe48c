import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { bodyParser } from '#platform/body_parser'
import ApiError from '#exceptions/api_error'
import { guardBodyDepth } from '#http/body_depth'

/**
 * Parses the body of Portal API routes, after authentication and role checks.
 * A body sent with a content type the route does not take is 415
 * UNSUPPORTED_MEDIA_TYPE (decisions.md §1) rather than silently ignored.
 */
export default class BodyMiddleware {
  async handle(
    ctx: HttpContext,
    next: NextFn,
    options: { types?: string[]; ignoreInvalid?: boolean } = {}
  ) {
    const types = options.types ?? ['json']
    if (options.ignoreInvalid) return this.parseLeniently(ctx, next, types)
    if (!ctx.request.is(types)) {
      if (carriesBody(ctx)) {
        throw new ApiError(
          'UNSUPPORTED_MEDIA_TYPE',
          'The request body content type is not accepted by this endpoint.'
        )
      }
      // No body, and a content type this route does not take: nothing to parse (a
      // parser for that type, e.g. multipart without a boundary, must not run). The
      // body stays the framework's empty one: setting it deep-clones it, a share of
      // every GET's CPU for nothing.
      return next()
    }
    // The depth of a parsed body is bounded before anything walks it:
    // the framework deep-clones the body as soon as it is set, recursively, so the
    // check runs on the way in (iteratively), and a deeper body is a 422 on `body`.
    guardBodyDepth(ctx)
    const parser = await bodyParser()
    return parser.handle(ctx, next)
  }

  /**
   * A route whose payload is ignored (logout): a body of the accepted type is read for
   * the merchant-selector check, and anything else (another type, malformed, too
   * large, too deep) is an empty body rather than a refusal.
   */
  private async parseLeniently(ctx: HttpContext, next: NextFn, types: string[]) {
    if (!ctx.request.is(types)) {
      ctx.request.setInitialBody({})
      return next()
    }
    try {
      guardBodyDepth(ctx)
      const parser = await bodyParser()
      await parser.handle(ctx, async () => {})
    } catch {
      // The body, if any was set, is replaced: nothing of an unreadable one is used.
      ctx.request.updateBody({})
    }
    return next()
  }
}

/** A non-empty body is announced by a positive Content-Length or by chunked transfer. */
function carriesBody(ctx: HttpContext) {
  const length = Number(ctx.request.header('content-length') ?? 0)
  return length > 0 || ctx.request.header('transfer-encoding') !== undefined
}
