/*
| portal-api.md › Merchant resource; Merchant and logo: GET and PATCH /portal/merchant.
*/
import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import db from '@adonisjs/lucid/services/db'
import { resetState, setNow } from '#tests/helpers/database'
import { signedInMember, teammate } from '#tests/helpers/portal'
import { MERCHANT } from '#tests/helpers/merchant'
import { assignService } from '#services/merchants/create_merchant'

const patch = (client: ApiClient, session: { bearer: string }, body: unknown) =>
  client
    .patch(MERCHANT())
    .header('Authorization', session.bearer)
    .json(body as object)

/** A valid address of exactly `length` characters (long domain labels, short local part). */
const emailOfLength = (length: number) =>
  `a@${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(length - 199)}.test`

test.group('GET /portal/merchant', (group) => {
  group.each.setup(() => resetState())

  test('returns exactly the Merchant resource fields', async ({ client, assert }) => {
    setNow('2026-03-01T10:00:00Z')
    const developer = await signedInMember('developer')
    const response = await client.get(MERCHANT()).header('Authorization', developer.bearer)
    response.assertStatus(200)
    response.assertHeader('cache-control', 'no-store')
    const { merchant } = developer
    assert.deepEqual(response.body(), {
      success: true,
      message: 'Success',
      data: {
        id: merchant.id,
        reference_id: merchant.referenceId,
        name: merchant.name,
        contact_person: merchant.contactPerson,
        email: merchant.email,
        dial_code: merchant.dialCode,
        phone: merchant.phone,
        address: merchant.address,
        website: null,
        logo_url: null,
        currency: 'PHP',
        is_active: true,
        is_production: false,
        services: [],
        created_at: '2026-03-01T10:00:00.000Z',
        updated_at: '2026-03-01T10:00:00.000Z',
      },
    })
  })

  test('services come from merchant:service assignments; active needs service and assignment', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const other = await signedInMember('administrator')
    const gcash = await assignService({
      merchantId: admin.merchant.id,
      code: 'gcash',
      type: 'ewallet',
      isActive: true,
      isProduction: true,
    })
    const maya = await assignService({
      merchantId: admin.merchant.id,
      code: 'maya',
      type: 'ewallet',
      isActive: false,
      isProduction: false,
    })
    const cards = await assignService({
      merchantId: admin.merchant.id,
      code: 'cards',
      type: 'card',
      isActive: true,
      isProduction: false,
    })
    await db.from('services').where('id', cards.service.id).update({ is_active: false })
    await assignService({
      merchantId: other.merchant.id,
      code: 'bank',
      type: 'bank_transfer',
      isActive: true,
      isProduction: false,
    })

    const response = await client.get(MERCHANT()).header('Authorization', admin.bearer)
    assert.deepEqual(response.body().data.services, [
      {
        id: gcash.service.id,
        code: 'gcash',
        type: 'ewallet',
        is_active: true,
        is_production: true,
      },
      {
        id: maya.service.id,
        code: 'maya',
        type: 'ewallet',
        is_active: false,
        is_production: false,
      },
      { id: cards.service.id, code: 'cards', type: 'card', is_active: false, is_production: false },
    ])
  })

  test('never includes credentials, keys, fees or settings', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const response = await client.get(MERCHANT()).header('Authorization', admin.bearer)
    const fields = Object.keys(response.body().data)
    for (const secret of [
      'logo_path',
      'integration_keys',
      'secret_key',
      'authentication_token',
      'webhook_url',
      'x_token',
      'fees',
      'settlement',
    ]) {
      assert.notInclude(fields, secret)
    }
  })
})

test.group('PATCH /portal/merchant', (group) => {
  group.each.setup(() => resetState())

  test('updates the supplied fields only and answers the updated merchant', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const before = admin.merchant
    const response = await patch(client, admin, {
      name: '  Acme Payments  ',
      website: 'https://acme.example/shop',
    })
    response.assertStatus(200)
    assert.equal(response.body().message, 'Merchant profile updated.')
    const data = response.body().data
    assert.equal(data.name, 'Acme Payments')
    assert.equal(data.website, 'https://acme.example/shop')
    assert.equal(data.contact_person, before.contactPerson)
    assert.equal(data.email, before.email)
    assert.equal(data.phone, before.phone)
    const row = await db.from('merchants').where('id', before.id).first()
    assert.equal(row.name, 'Acme Payments')
    assert.equal(row.address, before.address)
  })

  test('every field at its bounds is accepted', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const body = {
      name: 'N'.repeat(150),
      contact_person: 'C'.repeat(100),
      // RFC 5321 caps a usable address at 254 characters, within the contract's 255.
      email: emailOfLength(254),
      dial_code: '+'.padEnd(8, '9'),
      phone: '9'.repeat(30),
      address: `${'A'.repeat(200)}\n${'B'.repeat(299)}`,
      website: `https://example.test/${'p'.repeat(2048 - 21)}`,
    }
    assert.lengthOf(body.website, 2048)
    const response = await patch(client, admin, body)
    assert.equal(response.status(), 200, JSON.stringify(response.body().errors))
    for (const [field, value] of Object.entries(body))
      assert.equal(response.body().data[field], value)
  })

  test('bounds are counted in characters', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const response = await patch(client, admin, { name: '😀'.repeat(150) })
    response.assertStatus(200)
    assert.equal(response.body().data.name, '😀'.repeat(150))
  })

  test('each field over its bound is a 422 on that field', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const over: Record<string, string> = {
      name: 'N'.repeat(151),
      contact_person: 'C'.repeat(101),
      email: emailOfLength(256),
      dial_code: '+'.padEnd(9, '9'),
      phone: '9'.repeat(31),
      address: 'A'.repeat(501),
      website: `https://example.test/${'p'.repeat(2048 - 20)}`,
    }
    for (const [field, value] of Object.entries(over)) {
      const response = await patch(client, admin, { [field]: value })
      response.assertStatus(422)
      assert.deepEqual(Object.keys(response.body().errors), [field], field)
    }
  })

  test('at least one field is required: {} is a 422', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    for (const body of [{}, null, []]) {
      const response = await patch(client, admin, body)
      response.assertStatus(422)
      assert.equal(response.body().error_code, 'VALIDATION_ERROR')
    }
  })

  test('supplied fields other than website cannot be null or empty', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    for (const field of ['name', 'contact_person', 'email', 'dial_code', 'phone', 'address']) {
      for (const value of [null, '', '   ']) {
        const response = await patch(client, admin, { [field]: value })
        response.assertStatus(422)
        assert.deepEqual(Object.keys(response.body().errors), [field], `${field}=${value}`)
      }
    }
  })

  test('website: an empty string becomes null, and null is accepted', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    await patch(client, admin, { website: 'https://acme.example' })
    const emptied = await patch(client, admin, { website: '' })
    emptied.assertStatus(200)
    assert.isNull(emptied.body().data.website)
    await patch(client, admin, { website: 'https://acme.example' })
    const nulled = await patch(client, admin, { website: null })
    nulled.assertStatus(200)
    assert.isNull(nulled.body().data.website)
    const row = await db.from('merchants').where('id', admin.merchant.id).first()
    assert.isNull(row.website)
  })

  test('website must be an HTTPS URL', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    for (const website of [
      'http://acme.example',
      'acme.example',
      'https:acme.example',
      'ftp://acme.example',
      'javascript:alert(1)',
      'https://user:pass@acme.example',
      'https://',
      'https://acme .example',
      42,
    ]) {
      const response = await patch(client, admin, { website })
      response.assertStatus(422)
      assert.deepEqual(Object.keys(response.body().errors), ['website'], String(website))
    }
  })

  test('email must be valid', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const response = await patch(client, admin, { email: 'not-an-email' })
    response.assertStatus(422)
    assert.deepEqual(Object.keys(response.body().errors), ['email'])
  })

  test('read-only and unknown fields are rejected with 422 by name, and nothing changes', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    for (const field of [
      'id',
      'reference_id',
      'currency',
      'is_active',
      'is_production',
      'services',
      'created_at',
      'updated_at',
      'logo_url',
      'fees',
      'settlement',
      'provider_settings',
      'credentials',
      'secret_key',
    ]) {
      const response = await patch(client, admin, { name: 'Changed', [field]: 'x' })
      response.assertStatus(422)
      assert.deepEqual(Object.keys(response.body().errors), [field], field)
    }
    const row = await db.from('merchants').where('id', admin.merchant.id).first()
    assert.equal(row.name, admin.merchant.name)
  })

  test('fields the JSON parser drops (__proto__, constructor.prototype) are still unlisted: 422 by name', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const cases: Array<[string, string]> = [
      ['{"__proto__":{"x":1},"name":"Changed"}', '__proto__'],
      ['{"\\u005f_proto__":1,"name":"Changed"}', '__proto__'],
      ['{"constructor":{"prototype":{"x":1}},"name":"Changed"}', 'constructor'],
    ]
    for (const [body, field] of cases) {
      const response = await client
        .patch(MERCHANT())
        .header('Authorization', admin.bearer)
        .unsafeJson(body)
        .type('application/json')
      assert.equal(response.status(), 422, body)
      assert.deepEqual(Object.keys(response.body().errors), [field], body)
    }
    const row = await db.from('merchants').where('id', admin.merchant.id).first()
    assert.equal(row.name, admin.merchant.name)
  })

  test('a merchant selector naming another merchant is 403 MERCHANT_SCOPE_MISMATCH', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const response = await patch(client, admin, {
      name: 'Changed',
      merchant_id: admin.merchant.id + 1,
    })
    response.assertStatus(403)
    assert.equal(response.body().error_code, 'MERCHANT_SCOPE_MISMATCH')
    const header = await client
      .patch(MERCHANT())
      .header('Authorization', admin.bearer)
      .header('X-Merchant-Id', String(admin.merchant.id + 1))
      .json({ name: 'Changed' })
    header.assertStatus(403)
  })

  test('a developer gets 403 FORBIDDEN before validation', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const developer = await teammate(admin, 'developer')
    for (const body of [{ name: 'Changed' }, { id: 1, website: 'ftp://x' }, {}]) {
      const response = await patch(client, developer, body)
      response.assertStatus(403)
      assert.equal(response.body().error_code, 'FORBIDDEN')
    }
    const row = await db.from('merchants').where('id', admin.merchant.id).first()
    assert.equal(row.name, admin.merchant.name)
  })

  test('the update is audited in the same transaction, with field names only', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    await patch(client, admin, { name: 'Audited Name', phone: admin.merchant.phone })
    const rows = await db.from('audit_logs').where('action', 'merchant.update')
    assert.lengthOf(rows, 1)
    assert.equal(rows[0].outcome, 'success')
    assert.equal(Number(rows[0].actor_user_id), admin.user.id)
    assert.equal(Number(rows[0].merchant_id), admin.merchant.id)
    assert.deepEqual(rows[0].metadata, { fields: ['name'] })
    assert.notInclude(JSON.stringify(rows[0]), 'Audited Name')
  })

  test('a failed audit write rolls the update back', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    await db.rawQuery(`
      create or replace function refuse_merchant_audit() returns trigger as $$
      begin
        if new.action = 'merchant.update' then raise exception 'audit refused'; end if;
        return new;
      end $$ language plpgsql;
      create trigger refuse_merchant_audit before insert on audit_logs
        for each row execute function refuse_merchant_audit();
    `)
    try {
      const response = await patch(client, admin, { name: 'Never Saved' })
      response.assertStatus(500)
    } finally {
      await db.rawQuery(`
        drop trigger refuse_merchant_audit on audit_logs;
        drop function refuse_merchant_audit();
      `)
    }
    const row = await db.from('merchants').where('id', admin.merchant.id).first()
    assert.equal(row.name, admin.merchant.name)
  })

  test('malformed bodies are 422, never 500', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    for (const body of ['"name"', '{"name":', '{"name":"a\\u0000b"}', '{"name":{"x":1}}']) {
      const response = await client
        .patch(MERCHANT())
        .header('Authorization', admin.bearer)
        .unsafeJson(body)
        .type('application/json')
      assert.equal(response.status(), 422, body)
    }
  })
})
