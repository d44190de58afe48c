/*
| What invitation acceptance checks before it writes (portal-api.md › Team › POST
| /portal/team/invitations/accept, Invitation status): the proof names a live
| invitation with attempts left (404, 410), its inviter is still an active
| administrator of an active merchant (410), and a change since the flow was chosen is
| judged on the invitation re-read under lock (a lost concurrent acceptance is 409
| USER_IDENTITY_CONFLICT). The acceptance itself is in accept.ts.
*/
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import db from '@adonisjs/lucid/services/db'
import ApiError from '#exceptions/api_error'
import { isConflict } from '#exceptions/error_codes'
import TeamInvitation from '#models/team_invitation'
import { ROLES } from '#models/user'
import {
  MAX_FAILED_ACCEPTANCE_ATTEMPTS,
  invitationUnavailable,
} from '#services/team/invitations/rules'
import { lockMerchantTeam } from '#services/team/team_locks'

export function identityConflict() {
  return ApiError.conflict(
    'USER_IDENTITY_CONFLICT',
    'The invitation could not be accepted because of a conflicting account change. Try again.'
  )
}

/** Unknown or rotated proof: 404. Not pending, expired or out of attempts: 410. */
export function ensureAcceptable(
  invitation: TeamInvitation | null
): asserts invitation is TeamInvitation {
  if (!invitation) throw ApiError.notFound()
  if (!invitation.isLive() || invitation.failedAttempts >= MAX_FAILED_ACCEPTANCE_ATTEMPTS) {
    throw invitationUnavailable()
  }
}

/** The inviter must still be an active administrator of an active merchant. */
export async function ensureInviterEligible(
  invitation: TeamInvitation,
  client?: TransactionClientContract
) {
  const row = await (client ?? db)
    .from('users')
    .join('merchants', 'merchants.id', 'users.merchant_id')
    .where('users.id', invitation.invitedBy)
    .where('users.merchant_id', invitation.merchantId)
    .where('users.role', ROLES.administrator)
    .where('users.is_active', true)
    .where('merchants.is_active', true)
    .select('users.id')
    .first()
  if (!row) throw invitationUnavailable()
}

/**
 * Re-reads the invitation under lock. It was live when the flow was chosen; if it
 * has been accepted since, this request lost a concurrent acceptance (409).
 */
export async function relockInvitation(trx: TransactionClientContract, seen: TeamInvitation) {
  await lockMerchantTeam(trx, seen.merchantId)
  const current = await TeamInvitation.query({ client: trx })
    .where('id', seen.id)
    .forUpdate()
    .first()
  if (!current || current.tokenHash !== seen.tokenHash) throw ApiError.notFound()
  if (current.status === 'accepted') throw identityConflict()
  ensureAcceptable(current)
  await ensureInviterEligible(current, trx)
  return current
}

/**
 * An account conflict seen right after the proof was read may come from a
 * concurrent acceptance of this very invitation that committed in between (its
 * account now a member): that is the loser of a double acceptance, 409
 * USER_IDENTITY_CONFLICT. Any other conflict is rethrown as is.
 */
export async function lostConcurrentAcceptance(
  seen: TeamInvitation,
  error: unknown
): Promise<never> {
  if (error instanceof ApiError && isConflict(error.errorCode)) {
    const current = await TeamInvitation.find(seen.id)
    if (current?.status === 'accepted' && current.tokenHash === seen.tokenHash) {
      throw identityConflict()
    }
  }
  throw error
}
