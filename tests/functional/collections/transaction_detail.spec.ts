import { test } from '@japa/runner'
import { resetState } from '#tests/helpers/database'
import { signedInMember, teammate } from '#tests/helpers/portal'
import { liftLimit } from '#tests/helpers/limits'
import { importTransactions, merchantRequest } from '#tests/helpers/collections'
import { route } from '#tests/helpers/routes'

test.group('GET /portal/collections/transactions/{transaction}', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => liftLimit('api'))

  test('both roles read one transaction, message Success', async ({ client, assert }) => {
    const admin = await signedInMember()
    const developer = await teammate(admin, 'developer')
    const [stored] = await importTransactions([
      {
        merchant_id: admin.merchant.id,
        environment: 'test',
        merchant_transaction_id: 'ORD-7',
        amount: '12.34',
        currency: 'PHP',
        payment_status: null,
        legacy_status: 'R',
        payment_brand: 'maya',
        created_at: '2026-03-01T10:00:00+08:00',
        updated_at: null,
        events: [merchantRequest('ORD-7', '2026-03-01T10:00:00+08:00')],
      },
    ])
    for (const member of [admin, developer]) {
      const response = await client
        .get(route('collections.transactions.show', { transaction: stored.id }))
        .header('Authorization', member.bearer)
        .qs({ environment: 'test' })
      response.assertStatus(200)
      response.assertHeader('cache-control', 'no-store')
      assert.deepEqual(response.body(), {
        success: true,
        message: 'Success',
        data: {
          id: stored.id,
          merchant_transaction_id: 'ORD-7',
          environment: 'test',
          amount: '12.34',
          currency: 'PHP',
          status: 'REJECTED',
          payment_brand: 'maya',
          payment_method: null,
          created_at: '2026-03-01T02:00:00.000000Z',
          updated_at: null,
          history_available: true,
        },
      })
    }
  })

  test('the other environment, another merchant or an unknown id is 404 NOT_FOUND', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const other = await signedInMember()
    const [mine, foreign] = await importTransactions([
      { merchant_id: admin.merchant.id, environment: 'live', merchant_transaction_id: 'A' },
      { merchant_id: other.merchant.id, environment: 'live', merchant_transaction_id: 'B' },
    ])
    const cases: Array<[number | string, string]> = [
      [mine.id, 'test'],
      [foreign.id, 'live'],
      [foreign.id + 1000, 'live'],
    ]
    for (const [id, environment] of cases) {
      const response = await client
        .get(route('collections.transactions.show', { transaction: id }))
        .header('Authorization', admin.bearer)
        .qs({ environment })
      response.assertStatus(404)
      assert.equal(response.body().error_code, 'NOT_FOUND')
    }
  })

  test('malformed ids and ids past bigint are 404, never 500', async ({ client, assert }) => {
    const admin = await signedInMember()
    for (const id of [
      '0',
      '01',
      '-1',
      '1.5',
      'abc',
      '9223372036854775808',
      '99999999999999999999',
      '123456789012345678901',
      '%20',
    ]) {
      const response = await client
        // The raw segment, as sent: route() would percent-encode it.
        .get(`${route('collections.transactions.index')}/${id}?environment=live`)
        .header('Authorization', admin.bearer)
      assert.equal(response.status(), 404, id)
      assert.equal(response.body().error_code, 'NOT_FOUND')
    }
    const maxBigint = await client
      .get(
        `${route('collections.transactions.show', { transaction: '9223372036854775807' })}?environment=live`
      )
      .header('Authorization', admin.bearer)
    maxBigint.assertStatus(404)
  })

  test('environment only: missing, invalid, pagination or other fields are 422', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember()
    const [stored] = await importTransactions([
      { merchant_id: admin.merchant.id, environment: 'live', merchant_transaction_id: 'A' },
    ])
    for (const qs of [
      {},
      { environment: 'Live' },
      { environment: 'live', page: 1 },
      { environment: 'live', per_page: 10 },
      { environment: 'live', status: 'PAID' },
    ]) {
      const response = await client
        .get(route('collections.transactions.show', { transaction: stored.id }))
        .header('Authorization', admin.bearer)
        .qs(qs)
      assert.equal(response.status(), 422, JSON.stringify(qs))
      assert.equal(response.body().error_code, 'VALIDATION_ERROR')
    }
  })
})
