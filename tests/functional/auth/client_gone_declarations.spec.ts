/*
| The endpoints whose declarations say `dropsWorkWhenClientLeaves` hand the client's
| departure to their current-password check (start/endpoint_handler.ts): a check still
| waiting when the client closes its connection is never hashed, and the mutation
| writes nothing. The login, the machine-client issue and the password change have
| theirs in login_hash_queue.spec.ts, the new passwords in new_password_hash_line.spec.ts;
| these are the other mutations that check a current password. Observed through the
| queue's counters, never timing: the test holds every hashing slot itself.
*/
import { test } from '@japa/runner'
import type { Assert } from '@japa/assert'
import db from '@adonisjs/lucid/services/db'
import { passwordHashQueue } from '#config/hash'
import { resetState } from '#tests/helpers/database'
import { raiseLimits } from '#tests/helpers/limits'
import { overrideEnv } from '#tests/helpers/env'
import { route } from '#tests/helpers/routes'
import { appHeaders, signedInMember, type Session } from '#tests/helpers/portal'
import { holdTheHashingSlots, leaveWhileTheCheckWaits } from '#tests/helpers/hash_queue'
import { auditRows, issueThroughApi, uniqueLabel } from '#tests/helpers/machine'
import { createInvitation } from '#tests/helpers/team'
import { UserFactory, DEFAULT_TEST_PASSWORD } from '#database/factories/user_factory'
import { ROLES } from '#models/user'

const REASON = 'Routine maintenance of the integration'

/** Leaves `request` while its check waits; asserts it was never hashed and wrote no audit. */
async function leaveAndExpectNothing(
  assert: Assert,
  cleanup: (handler: () => void) => void,
  request: { path: string; headers: Record<string, string>; payload: object; method?: string }
) {
  cleanup(overrideEnv({ PASSWORD_HASH_QUEUE: 10, PASSWORD_HASH_MAX_WAIT_MS: 60_000 }))
  const auditsBefore = await auditRows()
  const letGo = holdTheHashingSlots()
  cleanup(letGo)
  const before = await leaveWhileTheCheckWaits(request, cleanup)
  await letGo()
  // The holders' hashes only: the check was never computed.
  assert.equal(passwordHashQueue.stats.started, before.started)
  assert.lengthOf(await auditRows(), auditsBefore.length)
}

async function machineClientRow(id: number) {
  return db.from('merchant_oauth_clients').where('id', id).first()
}

async function storedKeys(session: Session) {
  return db.from('merchants').where('id', session.merchant.id).first()
}

test.group(
  'A current-password check whose client has gone is dropped (declared on its endpoint)',
  (group) => {
    group.each.setup(() => resetState())
    group.each.setup(() => raiseLimits())

    test('a machine-client rotation: never hashed, the client unchanged', async ({
      client,
      assert,
      cleanup,
    }) => {
      const admin = await signedInMember('administrator')
      const issued = await issueThroughApi(client, admin)
      const before = await machineClientRow(issued.client.id)
      await leaveAndExpectNothing(assert, cleanup, {
        path: route('merchant.machine_clients.rotate', { client: issued.client.id }),
        headers: { Authorization: admin.bearer },
        payload: {
          label: uniqueLabel(),
          reason: REASON,
          current_password: admin.password,
          overlap_minutes: 5,
        },
      })
      assert.deepEqual(await machineClientRow(issued.client.id), before)
    })

    test('a machine-client revocation: never hashed, the client not revoked', async ({
      client,
      assert,
      cleanup,
    }) => {
      const admin = await signedInMember('administrator')
      const issued = await issueThroughApi(client, admin)
      await leaveAndExpectNothing(assert, cleanup, {
        path: route('merchant.machine_clients.revoke', { client: issued.client.id }),
        headers: { Authorization: admin.bearer },
        payload: { reason: REASON, current_password: admin.password },
      })
      const row = await machineClientRow(issued.client.id)
      assert.isNull(row.revoked_at)
    })

    test('a credential consumption: never hashed, the delivery still unconsumed', async ({
      client,
      assert,
      cleanup,
    }) => {
      const admin = await signedInMember('administrator')
      const issued = await issueThroughApi(client, admin)
      const delivery = () =>
        db.from('credential_deliveries').where('id', issued.delivery.id).first()
      const before = await delivery()
      await leaveAndExpectNothing(assert, cleanup, {
        path: route('merchant.credential_deliveries.consume', { delivery: issued.delivery.id }),
        headers: { Authorization: admin.bearer },
        payload: { current_password: admin.password },
      })
      assert.deepEqual(await delivery(), before)
    })

    test('an integration key put and delete: never hashed, the keys unchanged', async ({
      assert,
      cleanup,
    }) => {
      const admin = await signedInMember('administrator')
      const before = await storedKeys(admin)
      const path = route('merchant.integration_keys.update', { keyType: 'secret_key' })
      await leaveAndExpectNothing(assert, cleanup, {
        path,
        method: 'PUT',
        headers: { Authorization: admin.bearer },
        payload: { value: 'sk_live_example', current_password: admin.password, reason: REASON },
      })
      await leaveAndExpectNothing(assert, cleanup, {
        path,
        method: 'DELETE',
        headers: { Authorization: admin.bearer },
        payload: { current_password: admin.password, reason: REASON },
      })
      assert.deepEqual(await storedKeys(admin), before)
    })

    test('an invitation accepted by an existing account: never hashed, the invitation still pending', async ({
      assert,
      cleanup,
    }) => {
      const team = await signedInMember('administrator')
      const account = await UserFactory.merge({
        merchantId: null,
        isActive: false,
        role: ROLES.developer,
      }).create()
      const { invitation, proof } = await createInvitation(team.merchant, team.user, {
        email: account.email,
      })
      await leaveAndExpectNothing(assert, cleanup, {
        path: route('team.invitations.accept'),
        headers: appHeaders(team.client),
        payload: { token: proof, current_password: DEFAULT_TEST_PASSWORD },
      })
      await invitation.refresh()
      assert.equal(invitation.status, 'pending')
      await account.refresh()
      assert.isNull(account.merchantId)
    })
  }
)
