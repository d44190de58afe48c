import { DateTime } from 'luxon'
import TeamInvitation from '#models/team_invitation'
import type { InvitationStatus } from '#models/team_vocabulary'
import type { UserActor } from '#auth/actor'

/** GET /portal/team/invitations: newest first, then UUID (descending). */
export async function listInvitations(
  actor: UserActor,
  options: { status?: InvitationStatus; page: number; perPage: number }
) {
  const now = DateTime.now().toJSDate()
  const query = TeamInvitation.query().where('merchant_id', actor.merchantId)
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
