/*
| portal-api.md › Integration keys, Integration keys presence, Limits (integration
| key PUT and DELETE).
*/
import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import db from '@adonisjs/lucid/services/db'
import encryption from '@adonisjs/core/services/encryption'
import { resetState, setNow } from '#tests/helpers/database'
import { liftLimit } from '#tests/helpers/limits'
import { route } from '#tests/helpers/routes'
import { captureLogs } from '#tests/helpers/logs'
import { signedInMember, teammate, type Session } from '#tests/helpers/portal'
import { INTEGRATION_KEYS, integrationKey, LOGO, uploadLogo } from '#tests/helpers/merchant'
import { tinyPng } from '#tests/helpers/images'
import { integrationKeyPurpose } from '#services/merchants/integration_keys'
import type { IntegrationKeyType } from '#validators/merchant'

const REASON = 'Rotating the signing key'

const put = (client: ApiClient, session: Session, keyType: string, body: object) =>
  client.put(integrationKey(keyType)).header('Authorization', session.bearer).json(body)

const remove = (client: ApiClient, session: Session, keyType: string, body: object) =>
  client.delete(integrationKey(keyType)).header('Authorization', session.bearer).json(body)

const putValue = (client: ApiClient, session: Session, keyType: string, value: unknown) =>
  put(client, session, keyType, { value, current_password: session.password, reason: REASON })

const liftKeyLimit = () => liftLimit('integrationKeyMutation')

async function storedValue(merchantId: number, keyType: IntegrationKeyType) {
  const row = await db.from('merchant_integrations').where('merchant_id', merchantId).first()
  const encrypted = row?.[`encrypted_${keyType}`] ?? null
  return encrypted === null
    ? null
    : encryption.decrypt<string>(encrypted, integrationKeyPurpose(merchantId, keyType))
}

test.group('GET /portal/merchant/integration-keys', (group) => {
  group.each.setup(() => resetState())

  test('without an integration record: both false, updated_at null, and no record is created', async ({
    client,
    assert,
  }) => {
    const developer = await signedInMember('developer')
    const response = await client.get(INTEGRATION_KEYS()).header('Authorization', developer.bearer)
    response.assertStatus(200)
    response.assertHeader('cache-control', 'no-store, private')
    assert.deepEqual(response.body().data, {
      has_authentication_token: false,
      has_secret_key: false,
      updated_at: null,
    })
    const rows = await db.from('merchant_integrations')
    assert.lengthOf(rows, 0)
  })

  test('shows presence only, never a value', async ({ client, assert }) => {
    setNow('2026-03-01T10:00:00Z')
    const admin = await signedInMember('administrator')
    await putValue(client, admin, 'secret_key', 'sk-presence-only-1234')
    const response = await client.get(INTEGRATION_KEYS()).header('Authorization', admin.bearer)
    assert.deepEqual(response.body().data, {
      has_authentication_token: false,
      has_secret_key: true,
      updated_at: '2026-03-01T10:00:00.000Z',
    })
  })
})

test.group('PUT /portal/merchant/integration-keys/{keyType}', (group) => {
  group.each.setup(() => resetState())

  for (const keyType of ['authentication_token', 'secret_key'] as const) {
    test(`sets ${keyType}: 200 presence, message, no-store private, encrypted at rest`, async ({
      client,
      assert,
    }) => {
      setNow('2026-03-01T10:00:00Z')
      const admin = await signedInMember('administrator')
      const value = `key-${keyType}-0123456789`
      const response = await putValue(client, admin, keyType, value)
      response.assertStatus(200)
      response.assertHeader('cache-control', 'no-store, private')
      assert.equal(response.body().message, 'Integration key updated.')
      assert.deepEqual(response.body().data, {
        has_authentication_token: keyType === 'authentication_token',
        has_secret_key: keyType === 'secret_key',
        updated_at: '2026-03-01T10:00:00.000Z',
      })
      const row = await db.from('merchant_integrations').first()
      assert.notInclude(JSON.stringify(row), value)
      assert.equal(await storedValue(admin.merchant.id, keyType), value)
    })
  }

  test('the value keeps its exact characters: never trimmed or normalized', async ({
    client,
    assert,
    cleanup,
  }) => {
    const admin = await signedInMember('administrator')
    cleanup(liftKeyLimit())
    for (const value of [
      '  padded value\t',
      '\nline\r\nbreaks\n',
      'Cafe\u0301 ≠ Café',
      '🔑'.repeat(4096),
    ]) {
      const response = await putValue(client, admin, 'secret_key', value)
      response.assertStatus(200)
      assert.equal(await storedValue(admin.merchant.id, 'secret_key'), value)
    }
  })

  test('the value must be a non-empty, not whitespace-only string of at most 4,096 characters', async ({
    client,
    assert,
    cleanup,
  }) => {
    const admin = await signedInMember('administrator')
    cleanup(liftKeyLimit())
    for (const value of ['', '   ', '\t\n', 'x'.repeat(4097), 12345, null, ['a'], { a: 1 }]) {
      const response = await putValue(client, admin, 'secret_key', value)
      response.assertStatus(422)
      assert.deepEqual(Object.keys(response.body().errors), ['value'])
    }
    const missing = await put(client, admin, 'secret_key', {
      current_password: admin.password,
      reason: REASON,
    })
    assert.deepEqual(Object.keys(missing.body().errors), ['value'])
    assert.isNull(await storedValue(admin.merchant.id, 'secret_key'))
  })

  test('reason must have 10 to 500 characters', async ({ client, assert, cleanup }) => {
    const admin = await signedInMember('administrator')
    cleanup(liftKeyLimit())
    for (const reason of [undefined, '', 'too short', 'r'.repeat(501)]) {
      const response = await put(client, admin, 'secret_key', {
        value: 'sk-value-1',
        current_password: admin.password,
        reason,
      })
      response.assertStatus(422)
      assert.deepEqual(Object.keys(response.body().errors), ['reason'])
    }
    const ok = await put(client, admin, 'secret_key', {
      value: 'sk-value-1',
      current_password: admin.password,
      reason: 'r'.repeat(500),
    })
    ok.assertStatus(200)
  })

  test('unlisted fields are rejected by name (strict)', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    const response = await put(client, admin, 'secret_key', {
      value: 'sk-value-1',
      current_password: admin.password,
      reason: REASON,
      key_type: 'secret_key',
    })
    response.assertStatus(422)
    assert.deepEqual(Object.keys(response.body().errors), ['key_type'])
  })

  test('a wrong current_password is a 422 on current_password, changes nothing, and is audited', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    await putValue(client, admin, 'secret_key', 'sk-original-value')
    const response = await put(client, admin, 'secret_key', {
      value: 'sk-replacement-value',
      current_password: 'Not-The-Password-1!',
      reason: REASON,
    })
    response.assertStatus(422)
    assert.deepEqual(Object.keys(response.body().errors), ['current_password'])
    assert.equal(await storedValue(admin.merchant.id, 'secret_key'), 'sk-original-value')
    const failures = await db
      .from('audit_logs')
      .where('action', 'integration_key.put')
      .where('outcome', 'failure')
    assert.lengthOf(failures, 1)
    assert.equal(failures[0].target_id, 'secret_key')
    assert.deepEqual(failures[0].metadata, { failure: 'current_password_incorrect' })
  })

  test('the change and its audit record commit together', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    await putValue(client, admin, 'authentication_token', 'at-value-123')
    const [row] = await db
      .from('audit_logs')
      .where('action', 'integration_key.put')
      .where('outcome', 'success')
    assert.equal(row.target_type, 'integration_key')
    assert.equal(row.target_id, 'authentication_token')
    assert.equal(row.reason, REASON)
    assert.equal(Number(row.actor_user_id), admin.user.id)

    await db.rawQuery(`
      create or replace function refuse_key_audit() returns trigger as $$
      begin
        if new.action = 'integration_key.put' and new.outcome = 'success' then
          raise exception 'audit refused';
        end if;
        return new;
      end $$ language plpgsql;
      create trigger refuse_key_audit before insert on audit_logs
        for each row execute function refuse_key_audit();
    `)
    try {
      const response = await putValue(client, admin, 'authentication_token', 'at-never-stored')
      response.assertStatus(500)
    } finally {
      await db.rawQuery(`
        drop trigger refuse_key_audit on audit_logs;
        drop function refuse_key_audit();
      `)
    }
    assert.equal(await storedValue(admin.merchant.id, 'authentication_token'), 'at-value-123')
  })

  test('other keyType spellings are 404', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    for (const keyType of [
      'SECRET_KEY',
      'Secret_Key',
      'secret-key',
      'secretKey',
      'x_token',
      'secret_key%20',
      'authentication_token_',
    ]) {
      const response = await putValue(client, admin, keyType, 'sk-value-1')
      response.assertStatus(404)
      assert.equal(response.body().error_code, 'NOT_FOUND')
    }
  })

  test('user PATs stay valid after a key change', async ({ client }) => {
    const admin = await signedInMember('administrator')
    await putValue(client, admin, 'secret_key', 'sk-value-1')
    const response = await client.get(INTEGRATION_KEYS()).header('Authorization', admin.bearer)
    response.assertStatus(200)
  })
})

test.group('DELETE /portal/merchant/integration-keys/{keyType}', (group) => {
  group.each.setup(() => resetState())

  test('removes one key (204, empty body) and preserves the other key and settings', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    await putValue(client, admin, 'secret_key', 'sk-value-1')
    await putValue(client, admin, 'authentication_token', 'at-value-1')
    await db
      .from('merchant_integrations')
      .update({ webhook_url: 'https://shop.example/hook', encrypted_x_token: 'x-token-cipher' })
    await uploadLogo(client, admin, await tinyPng())
    const logoBefore = await client.get(LOGO()).header('Authorization', admin.bearer)

    const response = await remove(client, admin, 'secret_key', {
      current_password: admin.password,
      reason: REASON,
    })
    response.assertStatus(204)
    response.assertHeader('cache-control', 'no-store, private')
    assert.equal(response.text(), '')
    assert.isNull(await storedValue(admin.merchant.id, 'secret_key'))
    assert.equal(await storedValue(admin.merchant.id, 'authentication_token'), 'at-value-1')
    const row = await db.from('merchant_integrations').first()
    assert.equal(row.webhook_url, 'https://shop.example/hook')
    assert.equal(row.encrypted_x_token, 'x-token-cipher')
    const logoAfter = await client.get(LOGO()).header('Authorization', admin.bearer)
    assert.deepEqual(logoAfter.body().data, logoBefore.body().data)
    assert.isNotNull(logoAfter.body().data.url)

    const presence = await client.get(INTEGRATION_KEYS()).header('Authorization', admin.bearer)
    assert.include(presence.body().data, { has_authentication_token: true, has_secret_key: false })
  })

  test('is idempotent when the key or the whole integration is absent, creating nothing', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await remove(client, admin, 'authentication_token', {
        current_password: admin.password,
        reason: REASON,
      })
      response.assertStatus(204)
    }
    const rows = await db.from('merchant_integrations')
    assert.lengthOf(rows, 0)
    const audits = await db.from('audit_logs').where('action', 'integration_key.delete')
    assert.deepEqual(
      audits.map((row) => [row.outcome, row.metadata]),
      [
        ['success', { removed: false }],
        ['success', { removed: false }],
      ]
    )
  })

  test('value is not accepted, and the body is strict', async ({ client, assert }) => {
    const admin = await signedInMember('administrator')
    await putValue(client, admin, 'secret_key', 'sk-value-1')
    const response = await remove(client, admin, 'secret_key', {
      value: 'sk-value-1',
      current_password: admin.password,
      reason: REASON,
    })
    response.assertStatus(422)
    assert.deepEqual(Object.keys(response.body().errors), ['value'])
    const empty = await client
      .delete(integrationKey('secret_key'))
      .header('Authorization', admin.bearer)
    empty.assertStatus(422)
    assert.sameMembers(Object.keys(empty.body().errors), ['current_password', 'reason'])
    assert.equal(await storedValue(admin.merchant.id, 'secret_key'), 'sk-value-1')
  })

  test('a wrong current_password is a 422, changes nothing, and is audited', async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    await putValue(client, admin, 'secret_key', 'sk-value-1')
    const response = await remove(client, admin, 'secret_key', {
      current_password: 'Wrong-Password-123!',
      reason: REASON,
    })
    response.assertStatus(422)
    assert.deepEqual(Object.keys(response.body().errors), ['current_password'])
    assert.equal(await storedValue(admin.merchant.id, 'secret_key'), 'sk-value-1')
    const failures = await db
      .from('audit_logs')
      .where('action', 'integration_key.delete')
      .where('outcome', 'failure')
    assert.lengthOf(failures, 1)
  })

  test('other keyType spellings are 404', async ({ client }) => {
    const admin = await signedInMember('administrator')
    for (const keyType of ['SECRET_KEY', 'authenticationToken', 'webhook_url']) {
      const response = await remove(client, admin, keyType, {
        current_password: admin.password,
        reason: REASON,
      })
      response.assertStatus(404)
    }
  })
})

test.group(
  'Integration key limit: 5 per minute per actor, merchant, operation and key type',
  (group) => {
    group.each.setup(() => resetState())

    test('the sixth PUT of a key type is 429 with Retry-After, audited; other buckets stay open', async ({
      client,
      assert,
    }) => {
      const admin = await signedInMember('administrator')
      for (let attempt = 0; attempt < 5; attempt++) {
        // Refused requests count too.
        const response = await putValue(
          client,
          admin,
          'secret_key',
          attempt % 2 ? '' : `sk-${attempt}`
        )
        assert.notEqual(response.status(), 429)
      }
      const throttled = await putValue(client, admin, 'secret_key', 'sk-6')
      throttled.assertStatus(429)
      assert.equal(throttled.body().error_code, 'RATE_LIMITED')
      assert.match(String(throttled.header('retry-after')), /^[1-9][0-9]*$/)
      throttled.assertHeader('cache-control', 'no-store, private')
      assert.equal(await storedValue(admin.merchant.id, 'secret_key'), 'sk-4')

      const [audit] = await db
        .from('audit_logs')
        .where('action', 'integration_key.put')
        .where('outcome', 'throttled')
      assert.equal(audit.target_id, 'secret_key')
      assert.equal(Number(audit.actor_user_id), admin.user.id)

      // Another key type, another operation, another administrator: their own buckets.
      const otherType = await putValue(client, admin, 'authentication_token', 'at-1')
      otherType.assertStatus(200)
      const otherOperation = await remove(client, admin, 'secret_key', {
        current_password: admin.password,
        reason: REASON,
      })
      otherOperation.assertStatus(204)
      const colleague = await teammate(admin, 'administrator')
      const otherActor = await putValue(client, colleague, 'secret_key', 'sk-colleague')
      otherActor.assertStatus(200)
    })

    test('a throttled DELETE is audited too', async ({ client, assert }) => {
      const admin = await signedInMember('administrator')
      const body = { current_password: admin.password, reason: REASON }
      for (let attempt = 0; attempt < 5; attempt++) await remove(client, admin, 'secret_key', body)
      const throttled = await remove(client, admin, 'secret_key', body)
      throttled.assertStatus(429)
      const rows = await db
        .from('audit_logs')
        .where('action', 'integration_key.delete')
        .where('outcome', 'throttled')
      assert.lengthOf(rows, 1)
    })
  }
)

test.group('No key value appears in any response, log line or audit record', (group) => {
  group.each.setup(() => resetState())

  test('set, replace, refuse and delete keys, then search everything for the values', async ({
    client,
    assert,
    cleanup,
  }) => {
    const logs = captureLogs()
    cleanup(logs.restore)
    cleanup(liftKeyLimit())
    const admin = await signedInMember('administrator')
    const developer = await teammate(admin, 'developer')
    const values = [
      'SECRET-first-9f8e7d6c5b4a',
      'SECRET-second-1a2b3c4d5e6f',
      'TOKEN-auth-0123abcd4567',
      'SECRET-refused-wrong-password',
      `SECRET-too-long-${'z'.repeat(4096)}`,
      'SECRET-refused-extra-field',
      'SECRET-developer-attempt',
    ]
    const seen: string[] = []
    const keep = (response: { status(): number; text(): string; headers(): unknown }) => {
      seen.push(response.text(), JSON.stringify(response.headers()))
    }
    keep(await putValue(client, admin, 'secret_key', values[0]))
    keep(await putValue(client, admin, 'secret_key', values[1]))
    keep(await putValue(client, admin, 'authentication_token', values[2]))
    keep(
      await put(client, admin, 'secret_key', {
        value: values[3],
        current_password: 'Wrong-Password-123!',
        reason: REASON,
      })
    )
    keep(await putValue(client, admin, 'secret_key', values[4]))
    keep(
      await put(client, admin, 'secret_key', {
        value: values[5],
        current_password: admin.password,
        reason: REASON,
        extra: values[5],
      })
    )
    keep(await putValue(client, developer, 'secret_key', values[6]))
    keep(
      await remove(client, admin, 'secret_key', {
        value: values[1],
        current_password: admin.password,
        reason: REASON,
      })
    )
    keep(
      await remove(client, admin, 'secret_key', {
        current_password: admin.password,
        reason: REASON,
      })
    )
    for (const session of [admin, developer]) {
      keep(await client.get(INTEGRATION_KEYS()).header('Authorization', session.bearer))
      keep(await client.get(route('merchant.show')).header('Authorization', session.bearer))
    }

    const audits = JSON.stringify(await db.from('audit_logs'))
    const stored = JSON.stringify(await db.from('merchant_integrations'))
    for (const value of values) {
      for (const text of seen) assert.notInclude(text, value)
      for (const line of logs.lines) assert.notInclude(line, value)
      assert.notInclude(audits, value)
      assert.notInclude(stored, value)
    }
    assert.isAbove(logs.lines.length, 0)
    assert.equal(await storedValue(admin.merchant.id, 'authentication_token'), values[2])
  })
})
