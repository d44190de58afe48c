/*
| Each route is served by the action of its declaration (start/register_endpoint.ts),
| and its handler carries that name, `<Controller>.<action>`, where
| `node ace list:routes` shows it (never "closure").
*/
import { test } from '@japa/runner'
import { ENDPOINTS } from '#controllers/endpoints'
import { runAce } from '#tests/helpers/ace_process'

interface ListedRoute {
  name: string
  handler: { type: string; name?: string }
}

const declaredActions = new Map(
  Object.values(ENDPOINTS).flatMap((endpoints) =>
    Object.values(endpoints).map((endpoint) => [endpoint.name, endpoint.action] as const)
  )
)

test.group('Route handlers', () => {
  test('list:routes names every handler <Controller>.<action> of its declaration', async ({
    assert,
  }) => {
    const { code, stdout, stderr } = await runAce(['list:routes', '--json'])
    assert.equal(code, 0, stderr)
    const routes = (JSON.parse(stdout) as { routes: ListedRoute[] }[]).flatMap(
      (domain) => domain.routes
    )
    assert.sameMembers(
      routes.map((route) => route.name),
      [...declaredActions.keys()]
    )
    for (const route of routes) {
      assert.notEqual(route.handler.name, 'closure', route.name)
      assert.match(route.handler.name ?? '', /^[A-Z][A-Za-z]*Controller\.[a-z][A-Za-z]*$/)
      assert.equal(route.handler.name!.split('.')[1], declaredActions.get(route.name), route.name)
    }
  })
})
