import { PortalTransformer } from '#transformers/portal_transformer'
import type User from '#models/user'
import { roleName } from '#models/user'
import type { TeamMember } from '#shapes/team'
import { utcIsoOrNull } from '#transformers/timestamps'

/** portal-api.md › Team member (list, role change and invitation acceptance responses). */
export default class TeamMemberTransformer extends PortalTransformer<User> {
  toObject(): TeamMember {
    const user = this.resource
    return {
      id: user.id,
      first_name: user.firstName,
      last_name: user.lastName,
      email: user.email,
      // Members are listed, changed and accepted with a Portal role only.
      role: roleName(user.role)!,
      is_active: user.isActive,
      // The contract defines joined_at as the account creation time for now.
      joined_at: utcIsoOrNull(user.createdAt),
    }
  }
}
