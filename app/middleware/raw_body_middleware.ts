import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { bodyParser } from '#platform/body_parser'
import { guardBodyDepth } from '#http/body_depth'

/**
 * The framework's body parser as it is (the token endpoint's form body, whose errors
 * are OAuth ones), with the nesting bound of every body: a JSON body
 * sent there nested thousands deep must not overflow the stack in the parser.
 */
export default class RawBodyMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    guardBodyDepth(ctx)
    const parser = await bodyParser()
    return parser.handle(ctx, next)
  }
}
