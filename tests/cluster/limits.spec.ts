/*
| Limits hold exactly across instances (issue 14 › Many instances behave as one;
| portal-api.md › Limits): two production builds share one limit store, so requests
| sent alternately (or all at once) to both are counted as if one server had seen them.
| Proven with the Redis store and with the PostgreSQL store.
*/
import { test } from '@japa/runner'
import {
  appHeaders,
  createMerchantWithUser,
  createPortalClient,
  signedInMember,
} from '#tests/helpers/portal'
import { call, countBy, Pair, resetCluster } from './helpers/instances.js'
import { route } from '#tests/helpers/routes'

for (const store of ['redis', 'database'] as const) {
  test.group(`Limits across two instances (${store} store)`, (group) => {
    const pair = new Pair(store)
    group.setup(async () => {
      await pair.start()
      return () => pair.stop()
    })
    group.each.setup(() => resetCluster())

    test('login: 5 a minute counted over requests sent alternately to both', async ({ assert }) => {
      const portalClient = await createPortalClient()
      const { user, password } = await createMerchantWithUser()
      const statuses: number[] = []
      let refused: Awaited<ReturnType<typeof call>> | undefined
      for (let index = 0; index < 6; index++) {
        const response = await call(pair.at(index), 'POST', route('auth.login'), {
          headers: appHeaders(portalClient),
          json: { username: user.email, password },
        })
        statuses.push(response.status)
        if (response.status === 429) refused = response
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429])
      assert.equal(refused!.body.error_code, 'RATE_LIMITED')
      assert.match(refused!.headers.get('retry-after') ?? '', /^\d+$/)
    })

    test('login: 12 at once split across both give exactly 5 answers and 7 refusals', async ({
      assert,
    }) => {
      const portalClient = await createPortalClient()
      const { user } = await createMerchantWithUser()
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          call(pair.at(index), 'POST', route('auth.login'), {
            headers: appHeaders(portalClient),
            json: { username: user.email, password: 'wrong-password' },
          })
        )
      )
      assert.deepEqual(countBy(responses.map((response) => response.status)), {
        401: 5,
        429: 7,
      })
    })

    test('credential consume: 10 a minute per actor and delivery, alternating', async ({
      assert,
    }) => {
      const admin = await signedInMember('administrator')
      const issued = await call(pair.a, 'POST', route('merchant.machine_clients.store'), {
        headers: { Authorization: admin.bearer },
        json: {
          label: 'Orders server',
          reason: 'Integration server',
          current_password: admin.password,
        },
      })
      assert.equal(issued.status, 201)
      const statuses: number[] = []
      for (let index = 0; index < 11; index++) {
        const response = await call(
          pair.at(index),
          'POST',
          route('merchant.credential_deliveries.consume', {
            delivery: issued.body.data.delivery.id,
          }),
          {
            headers: { Authorization: admin.bearer },
            json: { current_password: 'not-the-password' },
          }
        )
        statuses.push(response.status)
      }
      assert.deepEqual(statuses, [...Array(10).fill(422), 429])
    })

    test('API-wide: 60 a minute per user, alternating, and exact when sent all at once', async ({
      assert,
    }) => {
      const first = await signedInMember('developer')
      const statuses: number[] = []
      for (let index = 0; index < 61; index++) {
        const response = await call(pair.at(index), 'GET', route('profile.show'), {
          headers: { Authorization: first.bearer },
        })
        statuses.push(response.status)
      }
      assert.deepEqual(countBy(statuses), { 200: 60, 429: 1 })
      assert.equal(statuses.at(-1), 429)

      const second = await signedInMember('developer')
      const responses = await Promise.all(
        Array.from({ length: 70 }, (_, index) =>
          call(pair.at(index), 'GET', route('profile.show'), {
            headers: { Authorization: second.bearer },
          })
        )
      )
      assert.deepEqual(countBy(responses.map((response) => response.status)), { 200: 60, 429: 10 })
    })
  })
}
