/*
| Team invitations (portal-api.md › Team, Invitation status, Limits): create, resend,
| revoke and list. Each mutation locks the merchant's team (team_locks.ts), writes
| the change and its audit record in one transaction, and only after the commit
| hands the email to the mailer. The proof (64 lowercase hex characters from 32
| random bytes) exists only in the email; the database keeps its SHA-256.
*/
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { DateTime } from 'luxon'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import db from '@adonisjs/lucid/services/db'
import ApiError from '#exceptions/api_error'
import type { PortalSession } from '#http/context'
import TeamInvitation, { type InvitationStatus } from '#models/team_invitation'
import User, { ROLES, roleName, type RoleName } from '#models/user'
import { actorFor, audit } from '#services/audit/audit_trail'
import type { Actor } from '#auth/actor'
import { ensureActorStillAdministrator, lockMerchantTeam } from '#services/team/team_locks'
import InvitationMail from '#mails/invitation_mail'
import { deliver } from '#services/mailer'
import { identityTaken } from '#services/users/identity_availability'
import { portalLink, requirePortalOrigin, type PortalOrigin } from '#support/portal_url'

export const INVITATION_VALIDITY_HOURS = 48
export const MAX_FAILED_ACCEPTANCE_ATTEMPTS = 10
export const ACCEPT_PATH = '/team/invitations/accept'

export function newInvitationProof() {
  return randomBytes(32).toString('hex')
}

export function hashInvitationProof(proof: string) {
  return createHash('sha256').update(proof, 'utf8').digest('hex')
}

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

async function ensureNoOtherLivePendingInvitation(
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
function sendInvitationMail(
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

async function findInvitationOf(
  trx: TransactionClientContract,
  merchantId: number,
  invitationId: string
) {
  const invitation = await TeamInvitation.query({ client: trx })
    .where('id', invitationId)
    .where('merchant_id', merchantId)
    .forUpdate()
    .first()
  if (!invitation) throw ApiError.notFound()
  return invitation
}

function unavailable() {
  return new ApiError(410, 'INVITATION_UNAVAILABLE', 'The invitation is no longer available.')
}

export { unavailable as invitationUnavailable }

export default class InvitationService {
  /** GET /portal/team/invitations: newest first, then UUID (descending). */
  static async list(
    merchantId: number,
    options: { status?: InvitationStatus; page: number; perPage: number }
  ) {
    const now = DateTime.now().toJSDate()
    const query = TeamInvitation.query().where('merchant_id', merchantId)
    switch (options.status) {
      case 'pending':
        query.where('status', 'pending').where('expires_at', '>', now)
        break
      case 'expired':
        query.where('status', 'pending').where('expires_at', '<=', now)
        break
      case 'accepted':
      case 'revoked':
        query.where('status', options.status)
        break
    }
    const result = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .paginate(options.page, options.perPage)
    return { items: result.all(), total: result.total }
  }

  /** POST /portal/team/invitations */
  static async create(
    session: PortalSession,
    input: { email: string; role: RoleName },
    requester: Actor
  ) {
    const origin = requirePortalOrigin()
    const { user: actor, merchant } = session
    const proof = newInvitationProof()
    const invitation = await db.transaction(async (trx) => {
      await lockMerchantTeam(trx, merchant.id)
      await ensureActorStillAdministrator(trx, merchant.id, actor)
      await accountForInvitationEmail(input.email, merchant.id, trx)
      await ensureNoOtherLivePendingInvitation(trx, merchant.id, input.email)
      const now = DateTime.now()
      const created = await TeamInvitation.create(
        {
          id: randomUUID(),
          merchantId: merchant.id,
          email: input.email,
          role: ROLES[input.role],
          status: 'pending',
          tokenHash: hashInvitationProof(proof),
          invitedBy: actor.id,
          failedAttempts: 0,
          expiresAt: now.plus({ hours: INVITATION_VALIDITY_HOURS }),
          createdAt: now,
        },
        { client: trx }
      )
      await audit(trx, actorFor(requester, { userId: actor.id, merchantId: merchant.id }), {
        action: 'team.invitation.create',
        outcome: 'success',
        metadata: { role: input.role },
        target: { type: 'team_invitation', id: created.id },
      })
      return created
    })
    const sent = await sendInvitationMail(invitation, proof, origin, merchant.name)
    return { invitation, sent }
  }

  /** POST /portal/team/invitations/{invitation}/resend */
  static async resend(session: PortalSession, invitationId: string, requester: Actor) {
    const { user: actor, merchant } = session
    const proof = newInvitationProof()
    let origin: PortalOrigin | undefined
    const invitation = await db.transaction(async (trx) => {
      await lockMerchantTeam(trx, merchant.id)
      await ensureActorStillAdministrator(trx, merchant.id, actor)
      const found = await findInvitationOf(trx, merchant.id, invitationId)
      if (found.status !== 'pending') throw unavailable()
      origin = requirePortalOrigin()
      await accountForInvitationEmail(found.email, merchant.id, trx)
      await ensureNoOtherLivePendingInvitation(trx, merchant.id, found.email, found.id)
      found.useTransaction(trx)
      found.merge({
        tokenHash: hashInvitationProof(proof),
        failedAttempts: 0,
        expiresAt: DateTime.now().plus({ hours: INVITATION_VALIDITY_HOURS }),
        // The administrator who resends vouches for the new proof.
        invitedBy: actor.id,
      })
      await found.save()
      await audit(trx, actorFor(requester, { userId: actor.id, merchantId: merchant.id }), {
        action: 'team.invitation.resend',
        outcome: 'success',
        target: { type: 'team_invitation', id: found.id },
      })
      return found
    })
    const sent = await sendInvitationMail(invitation, proof, origin!, merchant.name)
    return { invitation, sent }
  }

  /** DELETE /portal/team/invitations/{invitation}: repeat-safe; accepted → 410. */
  static async revoke(session: PortalSession, invitationId: string, requester: Actor) {
    const { user: actor, merchant } = session
    await db.transaction(async (trx) => {
      await lockMerchantTeam(trx, merchant.id)
      await ensureActorStillAdministrator(trx, merchant.id, actor)
      const found = await findInvitationOf(trx, merchant.id, invitationId)
      if (found.status === 'accepted') throw unavailable()
      if (found.status === 'revoked') return
      const now = DateTime.now()
      found.useTransaction(trx)
      found.merge({ status: 'revoked', revokedAt: now })
      await found.save()
      await audit(trx, actorFor(requester, { userId: actor.id, merchantId: merchant.id }), {
        action: 'team.invitation.revoke',
        outcome: 'success',
        target: { type: 'team_invitation', id: found.id },
      })
    })
  }
}
