/*
| Building blocks of the team tests: members of one merchant, invitations with a
| known proof, the fake mailer and the team lock.
*/
import { randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import mail from '@adonisjs/mail/services/main'
import type Merchant from '#models/merchant'
import TeamInvitation from '#models/team_invitation'
import type User from '#models/user'
import { ROLES } from '#models/user'
import type InvitationMail from '#mails/invitation_mail'
import { hashInvitationProof, newInvitationProof } from '#services/team/invitations/rules'
import { resetState, untilSomeBackendWaitsForALock } from '#tests/helpers/database'
import { setEnv } from '#tests/helpers/env'

export const TEST_PORTAL_URL = 'https://portal.example.test'
export const NEW_PASSWORD = 'Brand-New-Passw0rd!'

/** An invitation written straight to the database, with its proof. */
export async function createInvitation(
  merchant: Merchant,
  inviter: User,
  overrides: Partial<TeamInvitation> & { email?: string } = {}
) {
  const proof = newInvitationProof()
  const now = DateTime.now()
  const invitation = await TeamInvitation.create({
    id: randomUUID(),
    merchantId: merchant.id,
    email: `invitee-${randomUUID().slice(0, 8)}@example.test`,
    role: ROLES.developer,
    status: 'pending',
    tokenHash: hashInvitationProof(proof),
    invitedBy: inviter.id,
    failedAttempts: 0,
    expiresAt: now.plus({ hours: 48 }),
    createdAt: now,
    ...overrides,
  })
  return { invitation, proof }
}

/** The proof carried by the accept link of an invitation email. */
export function proofOf(sent: InvitationMail) {
  const text = (sent.message.toJSON().message as { text?: string }).text ?? ''
  const match = /\/team\/invitations\/accept#token=([a-f0-9]{64})/.exec(text)
  return match?.[1]
}

export function fakeMail() {
  return mail.fake()
}

export function restoreMail() {
  mail.restore()
}

/**
 * Per-test setup of tests that send invitation mails: a clean database, PORTAL_URL =
 * TEST_PORTAL_URL and the fake mailer. Returns the teardown (for `group.each.setup`).
 */
export async function invitationMailSetup() {
  await resetState()
  const restoreUrl = setEnv('PORTAL_URL', TEST_PORTAL_URL)
  fakeMail()
  return () => {
    restoreMail()
    restoreUrl()
  }
}

/**
 * Runs `request` while a test transaction holds the merchant's team lock (the
 * `merchants` row, as every team mutation takes it first). Once the request is seen
 * waiting for that lock, `meanwhile` runs in the holding
 * transaction, which then commits and lets the request go on: a deterministic way
 * to change the team between a request's authentication and its locked decision.
 */
export async function whileTeamLocked<T>(
  merchantId: number,
  request: () => PromiseLike<T>,
  meanwhile: (trx: TransactionClientContract) => Promise<void>
): Promise<T> {
  const trx = await db.transaction()
  let pending: Promise<T> | undefined
  try {
    await trx.from('merchants').where('id', merchantId).forUpdate().first()
    // An api-client request is sent once its `then` is called, as here.
    pending = Promise.resolve(request())
    // Swallowed here and awaited below: an early rejection must not go unhandled.
    pending.catch(() => undefined)
    await untilSomeBackendWaitsForALock({ query: '%from "merchants"%for update%' })
    await meanwhile(trx)
    await trx.commit()
  } catch (error) {
    if (!trx.isCompleted) await trx.rollback()
    throw error
  }
  return pending!
}
