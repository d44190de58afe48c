/*
| Machine-client labels are unique per merchant case-insensitively, revoked clients
| included, after trimming (portal-api.md › Machine clients; docs/machine-clients.md).
| The rule is one JavaScript function (app/support/machine_client_label.ts): the
| label is stored normalized and the unique index and the lookup compare stored
| values, so PostgreSQL's `lower()` (which lowercases a final `Σ` as `σ` and `İ` as
| `i`, unlike JavaScript) never decides. Non-ASCII labels only exist as legacy
| mappings (the API accepts ASCII labels only), created here straight through the
| model.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { resetState } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { issueThroughApi, mappedClientOfKind } from '#tests/helpers/machine'
import { route } from '#tests/helpers/routes'
import { normalizeLabel } from '#support/machine_client_label'

const REASON = 'Integration server for orders'

test.group('Machine-client labels compared as stored', (group) => {
  group.each.setup(() => resetState())
  // Rows only the new rule accepts would stop migration 0930's rollback at the end of a run.
  group.each.teardown(() => resetState())

  test('labels differing only in case or surrounding spaces are one label; the spelling is kept', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const issued = await issueThroughApi(client, admin, 'Orders Server')
    for (const label of ['oRDERS sERVER', '  orders server  ', 'ORDERS SERVER']) {
      const duplicate = await client
        .post(route('merchant.machine_clients.store'))
        .header('Authorization', admin.bearer)
        .json({ label, reason: REASON, current_password: admin.password })
      duplicate.assertStatus(422)
      assert.properties(duplicate.body().errors, ['label'])
    }
    const rows = await db.from('merchant_oauth_clients').select('label', 'label_normalized')
    assert.deepEqual(rows, [{ label: 'Orders Server', label_normalized: 'orders server' }])
    assert.equal(issued.client.label, 'Orders Server')
  })

  test('labels that are case variants by the JavaScript rule collide even where lower() tells them apart (final Σ)', async ({
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    assert.equal(normalizeLabel('ΟΔΟΣ'), normalizeLabel('οδος'))
    const first = await mappedClientOfKind(admin.merchant.id, 'framework', 'ΟΔΟΣ')
    assert.equal(first.labelNormalized, 'οδος')
    const second = await mappedClientOfKind(admin.merchant.id, 'framework', 'οδος').then(
      () => null,
      (error: { code?: string }) => error
    )
    assert.equal(second?.code, '23505')
    const rows = await db.from('merchant_oauth_clients').select('label')
    assert.deepEqual(rows, [{ label: 'ΟΔΟΣ' }])
  })

  test('the duplicate check and the unique index answer alike for a label lower() maps onto it (İ)', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    // JavaScript lowercases İ to i + U+0307, not to the ASCII i lower() can give.
    assert.notEqual(normalizeLabel('İNVENTORY'), normalizeLabel('inventory'))
    await mappedClientOfKind(admin.merchant.id, 'framework', 'İNVENTORY')
    const issued = await client
      .post(route('merchant.machine_clients.store'))
      .header('Authorization', admin.bearer)
      .json({ label: 'inventory', reason: REASON, current_password: admin.password })
    issued.assertStatus(201)
    // A label written with the combining dot is the same label as İNVENTORY.
    const variant = await mappedClientOfKind(
      admin.merchant.id,
      'framework',
      'i\u0307nventory'
    ).then(
      () => null,
      (error: { code?: string }) => error
    )
    assert.equal(variant?.code, '23505')
    // Through the API a non-ASCII label is a validation error, never a 500.
    const dotted = await client
      .post(route('merchant.machine_clients.store'))
      .header('Authorization', admin.bearer)
      .json({ label: 'İnventory', reason: REASON, current_password: admin.password })
    dotted.assertStatus(422)
    assert.properties(dotted.body().errors, ['label'])
    const labels = await db.from('merchant_oauth_clients').orderBy('id').select('label')
    assert.deepEqual(labels, [{ label: 'İNVENTORY' }, { label: 'inventory' }])
  })
})
