/*
| Team invitations (portal-api.md › Team, Invitation status, Limits): the rules create,
| resend, revoke, list (a file each beside this one) and acceptance (accept.ts and
| acceptance_checks.ts) share. Each mutation locks the merchant's team (team_locks.ts),
| writes the change and its audit record in one transaction, and only after the
| commit hands the email to the mailer. The proof (64 lowercase hex characters from 32
| random bytes) exists only in the email; the database keeps its SHA-256.
*/
import { DateTime } from 'luxon'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import ApiError from '#exceptions/api_error'
import TeamInvitation from '#models/team_invitation'
import User, { roleName } from '#models/user'
import type { UserActor } from '#auth/actor'
import { lockTeamAsAdministrator, lockTeamRow } from '#services/team/team_locks'
import InvitationMail from '#mails/invitation_mail'
import { deliver } from '#services/mailer'
import { identityTaken } from '#services/users/identity_availability'
import { portalLink, type PortalOrigin } from '#support/portal_url'
import { newProof, sha256Hex } from '#support/one_time_proof'

export const INVITATION_VALIDITY_HOURS = 48

export const MAX_FAILED_ACCEPTANCE_ATTEMPTS = 10

export const ACCEPT_PATH = '/team/invitations/accept'

/** An invitation's proof and its stored hash: the one-time proof rules (one_time_proof.ts). */
export const newInvitationProof = newProof
export const hashInvitationProof = sha256Hex

/** The mailed link: the Portal origin plus /team/invitations/accept#token=<proof>. */
export function acceptUrl(origin: PortalOrigin, proof: string) {
  return portalLink(origin, ACCEPT_PATH, { hash: `token=${proof}` })
}

/**
 * Who the invitation email names. `null`: no account, so acceptance creates one.
 * A user: an existing detached account that acceptance reactivates. Anything else
 * is a conflict (409) with the code the contract names.
 */
export async function accountForInvitationEmail(
  email: string,
  merchantId: number,
  client?: TransactionClientContract
): Promise<User | null> {
  const account = await User.query({ client }).where('email', email).first()
  if (account) {
    if (!roleName(account.role)) {
      throw ApiError.conflict('USER_NOT_ELIGIBLE', 'This account cannot join a merchant team.')
    }
    if (account.merchantId === merchantId) {
      throw ApiError.conflict('MEMBER_ALREADY_EXISTS', 'This person is already a team member.')
    }
    if (account.merchantId !== null) {
      throw ApiError.conflict(
        'USER_BELONGS_TO_ANOTHER_MERCHANT',
        'This person belongs to another merchant.'
      )
    }
    return account
  }
  // A new account takes the email as its username too: it must not collide with
  // another account's username (login matches username or email), nor with an
  // address another account is verifying (an unexpired pending email change).
  if (await identityTaken(email, { client })) {
    throw ApiError.conflict(
      'USER_IDENTITY_CONFLICT',
      'This email is already used as the identity of another account.'
    )
  }
  return null
}

export async function ensureNoOtherLivePendingInvitation(
  trx: TransactionClientContract,
  merchantId: number,
  email: string,
  exceptId?: string
) {
  const query = TeamInvitation.query({ client: trx })
    .where('merchant_id', merchantId)
    .where('email', email)
    .where('status', 'pending')
    .where('expires_at', '>', DateTime.now().toJSDate())
  if (exceptId) query.whereNot('id', exceptId)
  if (await query.first()) {
    throw ApiError.conflict(
      'INVITATION_ALREADY_PENDING',
      'A pending invitation already exists for this email.'
    )
  }
}

/**
 * Hands the invitation email to the mailer after the commit. A transport failure
 * does not undo the invitation: it is reported as `sent: false`.
 */
export function sendInvitationMail(
  invitation: TeamInvitation,
  proof: string,
  origin: PortalOrigin,
  merchantName: string
): Promise<boolean> {
  return deliver(
    new InvitationMail({
      email: invitation.email,
      merchantName,
      role: roleName(invitation.role)!,
      acceptUrl: acceptUrl(origin, proof),
      expiresAt: invitation.expiresAt,
    })
  )
}

/** An invitation of the merchant, locked for the transaction; 404 when there is none. */
export function lockInvitationOf(
  trx: TransactionClientContract,
  merchantId: number,
  invitationId: string
) {
  return lockTeamRow(TeamInvitation.query({ client: trx }), merchantId, invitationId)
}

export function invitationUnavailable() {
  return new ApiError('INVITATION_UNAVAILABLE', 'The invitation is no longer available.')
}

/**
 * Locks the team of the actor's merchant, then 403 unless the actor is still its
 * administrator; the merchant's name, for the invitation email.
 */
export async function lockTeamOf(trx: TransactionClientContract, actor: UserActor) {
  const merchant = await lockTeamAsAdministrator(trx, actor)
  return merchant?.name ?? ''
}
