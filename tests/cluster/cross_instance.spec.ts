/*
| Two instances behave as one (issue 14 › Many instances behave as one): the
| concurrency promises hold when the racing requests land on different processes
| (they rest on PostgreSQL locks and conditional writes, not on process memory), and
| whatever one instance hands out (PATs, OTPs, signed links, reset proofs, credential
| deliveries, machine tokens) works on the other. Each instance also opens its own
| metrics listener (METRICS_PORT), never on its API port.
*/
import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import User, { ROLES } from '#models/user'
import {
  appHeaders,
  createMerchantWithUser,
  createPortalClient,
  PORTAL_ORIGIN,
  signedInMember,
  teammate,
} from '#tests/helpers/portal'
import { NEW_PASSWORD } from '#tests/helpers/team'
import { call, countBy, Pair, resetCluster } from './helpers/instances.js'
import { route } from '#tests/helpers/routes'

const REASON = 'Integration server for orders'

function basic(id: string | number, secret: string) {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`
}

async function tokenGrant(pair: Pair, at: 0 | 1, clientId: number, secret: string) {
  const response = await fetch(`${pair.at(at).url}${route('oauth.token')}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      'Accept': 'application/json',
      'Authorization': basic(clientId, secret),
    },
    body: 'grant_type=client_credentials',
  })
  return { status: response.status, body: (await response.json()) as any }
}

test.group('Two instances behave as one', (group) => {
  // Limits lifted (x1000) so that every racing request reaches the operation itself;
  // limits.spec.ts proves the limits with the contract's numbers.
  const pair = new Pair('redis', { RATE_LIMIT_MULTIPLIER: '1000' }, true)
  group.setup(async () => {
    await pair.start()
    return () => pair.stop()
  })
  group.each.setup(() => resetCluster())

  test('50 consumes of one delivery split across both instances give exactly one secret', async ({
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const issued = await call(pair.a, 'POST', route('merchant.machine_clients.store'), {
      headers: { Authorization: admin.bearer },
      json: { label: 'Orders server', reason: REASON, current_password: admin.password },
    })
    assert.equal(issued.status, 201)
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        call(
          pair.at(index),
          'POST',
          route('merchant.credential_deliveries.consume', {
            delivery: issued.body.data.delivery.id,
          }),
          {
            headers: { Authorization: admin.bearer },
            json: { current_password: admin.password },
          }
        )
      )
    )
    assert.deepEqual(countBy(responses.map((response) => response.status)), { 200: 1, 410: 49 })
    const secrets = responses.map((response) => response.body?.data?.oauth_client_secret)
    assert.lengthOf(secrets.filter(Boolean), 1)
    const audits = await db
      .from('audit_logs')
      .where('action', 'credential_delivery.consume')
      .where('outcome', 'success')
    assert.lengthOf(audits, 1)
  })

  test('racing demotions of the last two administrators, one on each instance, leave one', async ({
    assert,
  }) => {
    for (let round = 0; round < 5; round++) {
      await resetCluster()
      const team = await signedInMember('administrator')
      const other = await teammate(team, 'administrator')
      const [first, second] = await Promise.all([
        call(pair.a, 'PATCH', route('team.members.role', { member: other.user.id }), {
          headers: { Authorization: team.bearer },
          json: { role: 'developer' },
        }),
        call(pair.b, 'PATCH', route('team.members.role', { member: team.user.id }), {
          headers: { Authorization: other.bearer },
          json: { role: 'developer' },
        }),
      ])
      // The loser is refused as 409 LAST_ADMINISTRATOR, 403 (demoted while it waited for
      // the team lock) or 401 (its token revoked by the winner): all contract answers.
      const statuses = [first.status, second.status]
      assert.lengthOf(
        statuses.filter((status) => status === 200),
        1,
        `round ${round}: ${statuses}`
      )
      assert.oneOf(
        statuses.find((status) => status !== 200),
        [401, 403, 409]
      )
      const admins = await User.query()
        .where('merchant_id', team.merchant.id)
        .where('role', ROLES.administrator)
        .where('is_active', true)
      assert.lengthOf(admins, 1)
    }
  })

  test('a double invitation acceptance, one on each instance, gives one success', async ({
    assert,
  }) => {
    for (let round = 0; round < 3; round++) {
      await resetCluster()
      const team = await signedInMember('administrator')
      const email = `invitee-${round}@example.test`
      const invited = await call(pair.a, 'POST', route('team.invitations.store'), {
        headers: { Authorization: team.bearer },
        json: { email, role: 'developer' },
      })
      assert.equal(invited.status, 201)
      const token = await pair.waitForMail(email, /accept#token=([a-f0-9]{64})/)
      const body = {
        token,
        first_name: 'Nina',
        last_name: 'Newcomer',
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      }
      const responses = await Promise.all(
        [pair.a, pair.b].map((instance) =>
          call(instance, 'POST', route('team.invitations.accept'), {
            headers: appHeaders(team.client),
            json: body,
          })
        )
      )
      const statuses = responses.map((response) => response.status)
      assert.lengthOf(
        statuses.filter((status) => status === 200),
        1,
        `round ${round}: ${statuses}`
      )
      assert.oneOf(
        statuses.find((status) => status !== 200),
        [409, 410]
      )
      assert.lengthOf(await User.query().where('email', email), 1)
      const accepted = await db
        .from('audit_logs')
        .where('action', 'team.invitation.accept')
        .where('outcome', 'success')
      assert.lengthOf(accepted, 1)
    }
  })

  test('a PAT issued by one instance authenticates on the other, and its logout there ends it everywhere', async ({
    assert,
  }) => {
    const portalClient = await createPortalClient()
    const { user, password } = await createMerchantWithUser()
    const login = await call(pair.a, 'POST', route('auth.login'), {
      headers: appHeaders(portalClient),
      json: { username: user.email, password },
    })
    assert.equal(login.status, 200)
    const bearer = `Bearer ${login.body.data.access_token}`
    const me = await call(pair.b, 'GET', route('profile.show'), {
      headers: { Authorization: bearer },
    })
    assert.equal(me.status, 200)
    const logout = await call(pair.b, 'POST', route('auth.logout'), {
      headers: { Authorization: bearer },
    })
    assert.equal(logout.status, 200)
    const after = await call(pair.a, 'GET', route('profile.show'), {
      headers: { Authorization: bearer },
    })
    assert.equal(after.status, 401)
  })

  test('an OTP mailed by one instance verifies on the other; a signed link mailed by one opens on the other', async ({
    assert,
  }) => {
    const member = await signedInMember('developer')
    const headers = { Authorization: member.bearer }

    const first = await call(pair.a, 'PATCH', route('profile.update'), {
      headers,
      json: { email: 'first-new@example.test' },
    })
    assert.equal(first.status, 200)
    const otp = await pair.waitForMail('first-new@example.test', /^ {4}(\d{6})$/m)
    const verified = await call(pair.b, 'POST', route('profile.email.verify'), {
      headers,
      json: { otp },
    })
    assert.equal(verified.status, 200, JSON.stringify(verified.body))
    assert.equal(verified.body.data.email, 'first-new@example.test')

    const second = await call(pair.b, 'PATCH', route('profile.update'), {
      headers,
      json: { email: 'second-new@example.test' },
    })
    assert.equal(second.status, 200)
    const link = await pair.waitForMail(
      'second-new@example.test',
      /^(http\S+\/portal\/profile\/email\/verify\/\S+)$/m
    )
    assert.isTrue(link.startsWith(pair.b.url), 'the link names the instance that mailed it')
    const url = new URL(link)
    const opened = await call(pair.a, 'GET', `${url.pathname}${url.search}`, { redirect: 'manual' })
    assert.equal(opened.status, 302)
    assert.include(opened.headers.get('location') ?? '', 'email_verification=verified')
    const stored = await User.findOrFail(member.user.id)
    assert.equal(stored.email, 'second-new@example.test')
  })

  test('a reset proof mailed by one instance sets the password on the other', async ({
    assert,
  }) => {
    const portalClient = await createPortalClient()
    const { user } = await createMerchantWithUser()
    const requested = await call(pair.a, 'POST', route('auth.reset_link'), {
      json: { email: user.email, reset_url: `${PORTAL_ORIGIN}/reset` },
    })
    assert.equal(requested.status, 200)
    const link = await pair.waitForMail(
      user.email,
      /^(https:\/\/portal\.example\.test\/reset\?\S+)$/m
    )
    const token = new URL(link).searchParams.get('token')
    const reset = await call(pair.b, 'POST', route('auth.new_password'), {
      json: {
        email: user.email,
        token,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      },
    })
    assert.equal(reset.status, 200, JSON.stringify(reset.body))
    const login = await call(pair.a, 'POST', route('auth.login'), {
      headers: appHeaders(portalClient),
      json: { username: user.email, password: NEW_PASSWORD },
    })
    assert.equal(login.status, 200)
  })

  test('a delivery issued on one instance is consumed on the other; its machine token works on the first', async ({
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const issued = await call(pair.a, 'POST', route('merchant.machine_clients.store'), {
      headers: { Authorization: admin.bearer },
      json: { label: 'Orders server', reason: REASON, current_password: admin.password },
    })
    assert.equal(issued.status, 201)
    const consumed = await call(
      pair.b,
      'POST',
      route('merchant.credential_deliveries.consume', { delivery: issued.body.data.delivery.id }),
      {
        headers: { Authorization: admin.bearer },
        json: { current_password: admin.password },
      }
    )
    assert.equal(consumed.status, 200)
    const { oauth_client_id: clientId, oauth_client_secret: secret } = consumed.body.data
    const grant = await tokenGrant(pair, 1, clientId, secret)
    assert.equal(grant.status, 200)
    const whoami = await call(pair.a, 'GET', route('merchant_api.whoami'), {
      headers: { Authorization: `Bearer ${grant.body.access_token}` },
    })
    assert.equal(whoami.status, 200)
  })

  test('each instance serves its own metrics on METRICS_PORT, never on the API port', async ({
    assert,
  }) => {
    const member = await signedInMember('developer')
    for (const instance of pair.instances) {
      const me = await call(instance, 'GET', route('profile.show'), {
        headers: { Authorization: member.bearer },
      })
      assert.equal(me.status, 200)
      const onApi = await call(instance, 'GET', '/metrics')
      assert.equal(onApi.status, 404)
      const scrape = await fetch(`http://127.0.0.1:${instance.metricsPort}/metrics`)
      assert.equal(scrape.status, 200)
      const text = await scrape.text()
      assert.match(
        text,
        /portal_http_requests_total\{route="[^"]+",method="GET",status="200"\} [1-9]/
      )
      assert.match(text, /portal_db_pool_connections\{connection="postgres",state="used"\}/)
      assert.notInclude(text, member.user.email)
    }
  })
})
