/*
| Paths of named routes (start/routes.ts), so tests follow the routes rather than
| copies of their paths. A query string is appended by the caller, as sent:
| `${route('collections.transactions.index')}?environment=live`. Names and parameters
| are checked against the committed route types (.adonisjs/server/routes.d.ts).
*/
import router from '@adonisjs/core/services/router'
import { urlFor } from '@adonisjs/core/services/url_builder'
import type { RouteBuilderArguments, RoutesList } from '@adonisjs/core/types/http'

/** The name of a route of start/routes.ts. */
export type RouteName = keyof RoutesList['ALL'] & string

export function route<Name extends RouteName>(
  ...args: RouteBuilderArguments<Name, RoutesList['ALL'][Name]>
): string {
  // The functional suite's server commits the routes when it starts; the cluster
  // suite starts none, and a route is only found once committed (committing twice
  // is a no-op).
  if (!router.commited) router.commit()
  return urlFor(...args)
}
