import { PortalTransformer } from '#transformers/portal_transformer'
import type TeamInvitation from '#models/team_invitation'
import { roleName } from '#models/user'
import type { Invitation, InvitationWithDelivery } from '#shapes/team'
import { utcIso } from '#transformers/timestamps'

/**
 * portal-api.md › Invitation: the seven fields, never the proof, its hash or the
 * acceptance URL. Create and resend responses add `sent` (InvitationWithDelivery).
 */
export default class InvitationTransformer extends PortalTransformer<TeamInvitation> {
  toObject(): Invitation {
    const invitation = this.resource
    return {
      id: invitation.id,
      email: invitation.email,
      // Invitations are only made for the two Portal roles (validators/team.ts).
      role: roleName(invitation.role)!,
      status: invitation.statusAt(),
      invited_by: invitation.invitedBy,
      created_at: utcIso(invitation.createdAt),
      expires_at: utcIso(invitation.expiresAt),
    }
  }
}

/** Create and resend responses: the invitation plus whether its email was handed to the transport. */
export class InvitationWithDeliveryTransformer extends PortalTransformer<{
  invitation: TeamInvitation
  sent: boolean
}> {
  toObject(): InvitationWithDelivery {
    return {
      ...new InvitationTransformer(this.resource.invitation).toObject(),
      sent: this.resource.sent,
    }
  }
}
