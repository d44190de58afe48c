/*
| Operator commands (decisions.md §4), run in-process through the ace kernel: one
| JSON object on stdout on success, a clear message and a non-zero exit on bad
| input, secrets printed once and stored only hashed.
*/
import { PassThrough, Readable } from 'node:stream'
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { isKeyedHash, secretMatches } from '#auth/high_entropy_secrets'
import { resetState } from '#tests/helpers/database'
import {
  basicAuthorization,
  createMerchantWithUser,
  createPortalClient,
} from '#tests/helpers/portal'
import { countRows, runCommand } from '#tests/helpers/foundation'
import MerchantCreate from '../../../commands/merchant_create.js'
import MerchantServiceAssign from '../../../commands/merchant_service.js'
import PortalClientCreate from '../../../commands/portal_client_create.js'
import UserCreate from '../../../commands/user_create.js'
import DemoSeed from '../../../commands/demo_seed.js'
import { MerchantFactory } from '#database/factories/merchant_factory'
import { route } from '#tests/helpers/routes'
import { getProfile, portalLogin } from '#tests/helpers/requests'

const STRONG_PASSWORD = 'Operator-Chosen-9!'

function passwordFrom(text: string) {
  return (command: UserCreate) => {
    command.passwordInput = Readable.from([Buffer.from(text)])
  }
}

test.group('merchant:create', (group) => {
  group.each.setup(() => resetState())

  test('prints {id, reference_id} of the new merchant', async ({ assert }) => {
    const result = await runCommand(MerchantCreate, [
      '--name=  Acme Payments  ',
      '--email=Pay@Acme.test',
      '--currency=PHP',
      '--contact-person=Ana Cruz',
      '--production',
    ])
    assert.equal(result.exitCode, 0, result.stderr.join('\n'))
    const printed = result.json()
    assert.sameMembers(Object.keys(printed), ['id', 'reference_id'])
    assert.isNumber(printed.id)
    const row = await db.from('merchants').where('id', printed.id).firstOrFail()
    assert.equal(row.reference_id, printed.reference_id)
    assert.equal(row.name, 'Acme Payments')
    assert.equal(row.email, 'pay@acme.test')
    assert.equal(row.currency, 'PHP')
    assert.equal(row.contact_person, 'Ana Cruz')
    assert.isTrue(row.is_production)
    assert.isTrue(row.is_active)
    assert.deepEqual(result.stderr, [])
  })

  test('--inactive creates an inactive merchant', async ({ assert }) => {
    const result = await runCommand(MerchantCreate, [
      '--name=Dormant',
      '--email=dormant@example.test',
      '--inactive',
    ])
    assert.equal(result.exitCode, 0)
    const row = await db.from('merchants').where('id', result.json().id).firstOrFail()
    assert.isFalse(row.is_active)
    assert.isFalse(row.is_production)
    assert.equal(row.currency, 'PHP')
  })

  test('rejects an unknown currency and a bad email with a non-zero exit', async ({ assert }) => {
    const cases: Array<[string, string[], RegExp]> = [
      ['unknown currency', ['--name=Acme', '--email=pay@acme.test', '--currency=QQQ'], /currency/i],
      [
        'lower-case currency',
        ['--name=Acme', '--email=pay@acme.test', '--currency=php'],
        /currency/i,
      ],
      ['bad email', ['--name=Acme', '--email=not-an-email', '--currency=PHP'], /email/i],
      ['missing name', ['--email=pay@acme.test', '--currency=PHP'], /name/i],
    ]
    for (const [name, argv, message] of cases) {
      const result = await runCommand(MerchantCreate, argv)
      assert.notEqual(result.exitCode, 0, name)
      assert.deepEqual(result.stdout, [], name)
      assert.match(result.stderr.join('\n'), message, name)
    }
    assert.equal(await countRows('merchants'), 0)
  })
})

test.group('merchant:service', (group) => {
  group.each.setup(() => resetState())

  test('creates the service and assigns it with its flags', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    const result = await runCommand(MerchantServiceAssign, [
      `--merchant=${merchant.id}`,
      '--code=gcash',
      '--type=ewallet',
      '--production',
    ])
    assert.equal(result.exitCode, 0, result.stderr.join('\n'))
    const printed = result.json()
    assert.equal(printed.merchant_id, merchant.id)
    assert.deepInclude(printed.service, { code: 'gcash', type: 'ewallet' })
    assert.isTrue(printed.is_active)
    assert.isTrue(printed.is_production)

    const service = await db.from('services').where('code', 'gcash').firstOrFail()
    const assignment = await db
      .from('merchant_services')
      .where({ merchant_id: merchant.id, service_id: service.id })
      .firstOrFail()
    assert.isTrue(assignment.is_active)
    assert.isTrue(assignment.is_production)
  })

  test('re-assigning updates the flags of the same assignment', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    const argv = [`--merchant=${merchant.id}`, '--code=gcash', '--type=ewallet']
    const first = await runCommand(MerchantServiceAssign, [...argv, '--production'])
    assert.equal(first.exitCode, 0)
    const again = await runCommand(MerchantServiceAssign, [...argv, '--inactive'])
    assert.equal(again.exitCode, 0)
    assert.isFalse(again.json().is_active)
    assert.isFalse(again.json().is_production)
    assert.equal(await countRows('services'), 1)
    assert.equal(await countRows('merchant_services'), 1)
    const assignment = await db.from('merchant_services').firstOrFail()
    assert.isFalse(assignment.is_active)
    assert.isFalse(assignment.is_production)
  })

  test('rejects an unknown merchant and a type clash with a non-zero exit', async ({ assert }) => {
    const unknown = await runCommand(MerchantServiceAssign, [
      '--merchant=999999',
      '--code=gcash',
      '--type=ewallet',
    ])
    assert.notEqual(unknown.exitCode, 0)
    assert.match(unknown.stderr.join('\n'), /999999/)
    assert.equal(await countRows('services'), 0)

    const merchant = await MerchantFactory.create()
    await runCommand(MerchantServiceAssign, [
      `--merchant=${merchant.id}`,
      '--code=gcash',
      '--type=ewallet',
    ])
    const clash = await runCommand(MerchantServiceAssign, [
      `--merchant=${merchant.id}`,
      '--code=gcash',
      '--type=card',
    ])
    assert.notEqual(clash.exitCode, 0)
    assert.deepEqual(clash.stdout, [])
  })
})

test.group('portal-client:create', (group) => {
  group.each.setup(() => resetState())

  test('prints {client_id, client_secret} once and stores only a hash', async ({
    assert,
    client,
  }) => {
    const result = await runCommand(PortalClientCreate, [
      '--name=Merchant Portal',
      '--origin=https://portal.example',
      '--origin=http://localhost:5173',
    ])
    assert.equal(result.exitCode, 0, result.stderr.join('\n'))
    const printed = result.json()
    assert.sameMembers(Object.keys(printed), ['client_id', 'client_secret'])

    const row = await db.from('portal_clients').where('client_id', printed.client_id).firstOrFail()
    assert.notInclude(JSON.stringify(row), printed.client_secret)
    // The high-entropy secret rule (issue 15): the keyed HMAC form, not scrypt.
    assert.isTrue(secretMatches(row.secret_hash, printed.client_secret))
    assert.deepEqual(row.allowed_origins, ['https://portal.example', 'http://localhost:5173'])
    assert.isTrue(row.is_active)

    // The printed credentials authenticate the Portal application.
    const { user, password } = await createMerchantWithUser()
    const response = await client
      .post(route('auth.login'))
      .headers({
        'Authorization': basicAuthorization(printed.client_id, printed.client_secret),
        'X-Service-Application': 'merchant_portal',
        'Origin': 'https://portal.example',
      })
      .json({ username: user.email, password })
    response.assertStatus(200)
  })

  test('rejects a missing or malformed origin with a non-zero exit', async ({ assert }) => {
    for (const argv of [
      ['--name=Portal'],
      ['--name=Portal', '--origin=portal.example'],
      ['--name=Portal', '--origin=https://portal.example/path'],
      ['--name=Portal', '--origin=ftp://portal.example'],
    ]) {
      const result = await runCommand(PortalClientCreate, argv)
      assert.notEqual(result.exitCode, 0, argv.join(' '))
      assert.deepEqual(result.stdout, [])
      assert.match(result.stderr.join('\n'), /origin/i)
    }
    assert.equal(await countRows('portal_clients'), 0)
  })
})

test.group('user:create', (group) => {
  group.each.setup(() => resetState())

  test('creates a user with a policy-compliant password read from standard input', async ({
    assert,
    client,
  }) => {
    const merchant = await MerchantFactory.create()
    const result = await runCommand(
      UserCreate,
      [
        `--merchant=${merchant.id}`,
        '--email=Ops.Admin@Shop.test',
        '--first-name=Olga',
        '--last-name=Ops',
        '--role=developer',
      ],
      passwordFrom(`${STRONG_PASSWORD}\nignored second line\n`)
    )
    assert.equal(result.exitCode, 0, result.stderr.join('\n'))
    const printed = result.json()
    assert.sameMembers(Object.keys(printed), ['id', 'reference_id'])
    assert.notInclude(result.stdout.join('\n'), STRONG_PASSWORD)

    const row = await db.from('users').where('id', printed.id).firstOrFail()
    assert.equal(row.email, 'ops.admin@shop.test')
    assert.equal(row.username, 'ops.admin@shop.test')
    assert.equal(row.role, 10)
    assert.equal(row.merchant_id, merchant.id)
    assert.notEqual(row.password, STRONG_PASSWORD)

    const app = await createPortalClient()
    const login = await portalLogin(client, app, {
      username: 'ops.admin@shop.test',
      password: STRONG_PASSWORD,
    })
    login.assertStatus(200)
    assert.equal(login.body().data.user.role, 10)
  })

  test('rejects a weak password, a duplicate email and an unknown merchant', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    const { user: existing } = await createMerchantWithUser({ merchant })
    const argv = (email: string, merchantId: number | string = merchant.id) => [
      `--merchant=${merchantId}`,
      `--email=${email}`,
      '--first-name=Olga',
      '--last-name=Ops',
      '--role=administrator',
    ]
    const cases: Array<[string, string[], string, RegExp]> = [
      ['weak password', argv('new@shop.test'), 'weakpassword\n', /password/i],
      ['short password', argv('new@shop.test'), 'Ab1!\n', /password/i],
      ['empty standard input', argv('new@shop.test'), '', /password/i],
      ['duplicate email', argv(existing.email.toUpperCase()), `${STRONG_PASSWORD}\n`, /already/i],
      ['unknown merchant', argv('new@shop.test', 999999), `${STRONG_PASSWORD}\n`, /999999/],
      ['bad role', [...argv('new@shop.test'), '--role=owner'], `${STRONG_PASSWORD}\n`, /role/i],
    ]
    for (const [name, args, stdin, message] of cases) {
      const result = await runCommand(UserCreate, args, passwordFrom(stdin))
      assert.notEqual(result.exitCode, 0, name)
      assert.deepEqual(result.stdout, [], name)
      assert.match(result.stderr.join('\n'), message, name)
      assert.notInclude(result.stderr.join('\n'), STRONG_PASSWORD, name)
    }
    assert.equal(await countRows('users'), 1)
  })
})

test.group('user:create › standard input', (group) => {
  group.each.setup(() => resetState())

  test('reads only the first line of a pipe that stays open', async ({ assert }) => {
    const merchant = await MerchantFactory.create()
    const open = new PassThrough()
    open.write(`${STRONG_PASSWORD}\nmore, and never an end`)
    const result = await runCommand(
      UserCreate,
      [
        `--merchant=${merchant.id}`,
        '--email=pipe@shop.test',
        '--first-name=P',
        '--last-name=Q',
        '--role=developer',
      ],
      (command) => {
        command.passwordInput = open
      }
    )
    assert.equal(result.exitCode, 0, result.stderr.join('\n'))
    assert.equal(await countRows('users'), 1)
  })

  test('checks its flags before reading the password: a bad flag fails without input', async ({
    assert,
  }) => {
    const silent = new PassThrough()
    const result = await runCommand(
      UserCreate,
      ['--email=not-an-email', '--role=owner'],
      (command) => {
        command.passwordInput = silent
      }
    )
    assert.notEqual(result.exitCode, 0)
    const stderr = result.stderr.join('\n')
    assert.match(stderr, /--email/)
    assert.match(stderr, /--role/)
    assert.equal(await countRows('users'), 0)
  })

  test('a password refused by the policy is named as the standard input, not a flag', async ({
    assert,
  }) => {
    const merchant = await MerchantFactory.create()
    const result = await runCommand(
      UserCreate,
      [
        `--merchant=${merchant.id}`,
        '--email=weak@shop.test',
        '--first-name=P',
        '--last-name=Q',
        '--role=developer',
      ],
      passwordFrom('weak\n')
    )
    assert.notEqual(result.exitCode, 0)
    assert.match(result.stderr.join('\n'), /password \(standard input\)/)
    assert.notMatch(result.stderr.join('\n'), /--password/)
  })
})

test.group('operator commands › arguments', (group) => {
  group.each.setup(() => resetState())

  test('a stray positional argument is refused before anything is done', async ({ assert }) => {
    const result = await runCommand(MerchantCreate, [
      '--name=Acme',
      '--email=pay@acme.test',
      '--currency=PHP',
      'extra',
    ])
    assert.notEqual(result.exitCode, 0)
    assert.deepEqual(result.stdout, [])
    assert.match(result.stderr.join('\n'), /unexpected argument: extra/)
    assert.equal(await countRows('merchants'), 0)
  })
})

test.group('demo:seed', (group) => {
  group.each.setup(() => resetState())

  test('prints working credentials', async ({ assert, client }) => {
    const result = await runCommand(DemoSeed, [])
    assert.equal(result.exitCode, 0, result.stderr.join('\n'))
    const demo = result.json()
    const headers = {
      'Authorization': basicAuthorization(
        demo.portal_client.client_id,
        demo.portal_client.client_secret
      ),
      'X-Service-Application': 'merchant_portal',
      'Origin': demo.portal_client.origins[0],
    }
    for (const [account, role] of [
      [demo.administrator, 'administrator'],
      [demo.developer, 'developer'],
    ] as const) {
      const login = await client
        .post(route('auth.login'))
        .headers(headers)
        .json({ username: account.username, password: account.password })
      login.assertStatus(200)
      const me = await getProfile(client, `Bearer ${login.body().data.access_token}`)
      me.assertStatus(200)
      assert.equal(me.body().data.role, role)
      assert.equal(me.body().data.merchant.id, demo.merchant.id)
    }
  })

  test('stores the demo Portal client secret in the keyed form, never the plaintext', async ({
    assert,
  }) => {
    const result = await runCommand(DemoSeed, [])
    const demo = result.json()
    const row = await db
      .from('portal_clients')
      .where('client_id', demo.portal_client.client_id)
      .firstOrFail()
    assert.notInclude(JSON.stringify(row), demo.portal_client.client_secret)
    assert.isTrue(isKeyedHash(row.secret_hash))
    assert.isTrue(secretMatches(row.secret_hash, demo.portal_client.client_secret))
  })

  test('re-running keeps the records and rotates the printed secrets', async ({
    assert,
    client,
  }) => {
    const firstRun = await runCommand(DemoSeed, [])
    const secondRun = await runCommand(DemoSeed, [])
    const first = firstRun.json()
    const second = secondRun.json()
    assert.equal(second.merchant.id, first.merchant.id)
    assert.equal(second.portal_client.client_id, first.portal_client.client_id)
    assert.notEqual(second.portal_client.client_secret, first.portal_client.client_secret)
    assert.notEqual(second.administrator.password, first.administrator.password)
    assert.equal(await countRows('merchants'), 1)
    assert.equal(await countRows('users'), 2)
    assert.equal(await countRows('portal_clients'), 1)

    const stale = await client
      .post(route('auth.login'))
      .headers({
        'Authorization': basicAuthorization(
          second.portal_client.client_id,
          first.portal_client.client_secret
        ),
        'X-Service-Application': 'merchant_portal',
      })
      .json({ username: second.administrator.username, password: second.administrator.password })
    stale.assertStatus(401)
  })
})
