/*
| Invitation acceptance (portal-api.md › Team › POST /portal/team/invitations/accept,
| Invitation status, Authentication rule 5). The flow is chosen from whether an
| account exists for the invitation email: a new account is created, or an existing
| detached account is reactivated after its current password is proven. Either way
| the member gets the invitation's merchant and role, the email is marked verified,
| the user's earlier tokens are revoked, and no PAT is issued.
|
| The invitation is read once to choose the flow, then re-read under lock inside
| the transaction: a change in between (a concurrent acceptance, a resend, a
| revocation) is judged on the locked row (acceptance_checks.ts).
*/
import { DateTime } from 'luxon'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import db from '@adonisjs/lucid/services/db'
import { hashNewPassword, invitationHashingPlace } from '#auth/password_hashing'
import { onUniqueViolation } from '#support/database_errors'
import TeamInvitation from '#models/team_invitation'
import User from '#models/user'
import { actorFor, audit } from '#services/audit/audit_trail'
import type { ApplicationActor } from '#auth/actor'
import {
  MAX_FAILED_ACCEPTANCE_ATTEMPTS,
  accountForInvitationEmail,
  hashInvitationProof,
  invitationUnavailable,
} from '#services/team/invitations/rules'
import {
  ensureAcceptable,
  ensureInviterEligible,
  identityConflict,
  lostConcurrentAcceptance,
  relockInvitation,
} from '#services/team/invitations/acceptance_checks'
import { currentPasswordMatches, wrongCurrentPassword } from '#services/users/current_password'
import { revokeAllTokensOf } from '#services/sessions/token_revocation'
import { AuditActions } from '#services/audit/actions'

async function markAccepted(
  trx: TransactionClientContract,
  invitation: TeamInvitation,
  user: User,
  requester: ApplicationActor,
  flow: 'new_account' | 'existing_account'
) {
  invitation.useTransaction(trx)
  invitation.merge({ status: 'accepted', acceptedAt: DateTime.now(), acceptedUserId: user.id })
  await invitation.save()
  await revokeAllTokensOf(user, trx)
  await audit(
    trx,
    actorFor(requester, {
      kind: 'portal_application',
      userId: user.id,
      merchantId: invitation.merchantId,
    }),
    {
      action: AuditActions.invitationAccept,
      outcome: 'success',
      metadata: { flow, portal_client_id: requester.portalClientId },
      target: { type: 'team_invitation', id: invitation.id },
    }
  )
}

/** The invitation a proof names, and the account its email names (null: none yet). */
export interface AcceptanceTarget {
  invitation: TeamInvitation
  account: User | null
}

/**
 * Resolves the proof (404 unknown, 410 unavailable, the inviter's and the email's
 * conflicts) before the rest of the body is validated: which body is valid
 * depends on whether the account exists.
 */
export async function resolveInvitation(proof: string): Promise<AcceptanceTarget> {
  const seen = await TeamInvitation.findBy('token_hash', hashInvitationProof(proof))
  ensureAcceptable(seen)
  await ensureInviterEligible(seen)
  const account = await accountForInvitationEmail(seen.email, seen.merchantId).catch(
    (error: unknown) => lostConcurrentAcceptance(seen, error)
  )
  return { invitation: seen, account }
}

/**
 * New account: the invitation email becomes its username and email. Its password is
 * hashed in the invitation's line, and dropped while it waits when the caller has gone
 * (`signal`): nothing is written then.
 */
export async function acceptAsNewAccount(
  requester: ApplicationActor,
  seen: TeamInvitation,
  input: { first_name: string; last_name: string; password: string },
  options: { signal?: AbortSignal } = {}
) {
  // Hashed before the transaction and its locks: never hash while holding a lock.
  const passwordHash = await hashNewPassword(
    input.password,
    invitationHashingPlace(seen.id, options.signal)
  )
  // Another account may take this email or username between the check and the insert.
  return onUniqueViolation(
    () =>
      db.transaction(async (trx) => {
        const invitation = await relockInvitation(trx, seen)
        if (await accountForInvitationEmail(invitation.email, invitation.merchantId, trx)) {
          throw identityConflict()
        }
        const user = new User()
        user.merge({
          merchantId: invitation.merchantId,
          username: invitation.email,
          email: invitation.email,
          firstName: input.first_name,
          lastName: input.last_name,
          role: invitation.role,
          isActive: true,
          emailVerifiedAt: DateTime.now(),
        })
        user.withPasswordHash(passwordHash).useTransaction(trx)
        await user.save()
        await markAccepted(trx, invitation, user, requester, 'new_account')
        return user
      }),
    identityConflict
  )
}

/** Existing detached account: reactivated with its password and profile unchanged. */
export async function acceptAsExistingAccount(
  requester: ApplicationActor,
  seen: TeamInvitation,
  account: User,
  input: { current_password: string },
  options: { signal?: AbortSignal } = {}
) {
  if (!(await currentPasswordMatches(account.id, input.current_password, options.signal))) {
    await recordWrongPassword(requester, seen)
    throw wrongCurrentPassword()
  }
  return db.transaction(async (trx) => {
    const invitation = await relockInvitation(trx, seen)
    const user = await User.query({ client: trx }).where('id', account.id).forUpdate().first()
    if (
      !user ||
      user.merchantId !== null ||
      user.role !== account.role ||
      user.password !== account.password ||
      user.email !== invitation.email
    ) {
      throw identityConflict()
    }
    user.useTransaction(trx)
    user.merge({
      merchantId: invitation.merchantId,
      role: invitation.role,
      isActive: true,
      rememberMeToken: null,
    })
    user.emailVerifiedAt ??= DateTime.now()
    await user.save()
    await markAccepted(trx, invitation, user, requester, 'existing_account')
    return user
  })
}

/**
 * Counts and audits a wrong current password. The count only grows while under
 * the limit: once ten are recorded the invitation answers 410 until resent.
 */
async function recordWrongPassword(requester: ApplicationActor, seen: TeamInvitation) {
  const attempts = await db.transaction(async (trx) => {
    const rows = await trx
      .from('team_invitations')
      .where('id', seen.id)
      .where('token_hash', seen.tokenHash)
      .where('status', 'pending')
      .where('failed_attempts', '<', MAX_FAILED_ACCEPTANCE_ATTEMPTS)
      .increment('failed_attempts', 1)
      .returning('failed_attempts')
    const counted = rows[0]?.failed_attempts ?? rows[0]
    await audit(
      trx,
      actorFor(requester, { kind: 'portal_application', merchantId: seen.merchantId }),
      {
        action: AuditActions.invitationAccept,
        outcome: 'failure',
        reason: 'wrong_current_password',
        metadata: {
          failed_attempts: typeof counted === 'number' ? counted : null,
          portal_client_id: requester.portalClientId,
        },
        target: { type: 'team_invitation', id: seen.id },
      }
    )
    return typeof counted === 'number' ? counted : null
  })
  if (attempts === null) throw invitationUnavailable()
}
