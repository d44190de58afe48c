import { PortalTransformer } from '#transformers/portal_transformer'
import type User from '#models/user'
import { roleName } from '#models/user'

/** portal-api.md › Team member (list, role change and invitation acceptance responses). */
export default class TeamMemberTransformer extends PortalTransformer<User> {
  toObject() {
    const user = this.resource
    return {
      id: user.id,
      first_name: user.firstName,
      last_name: user.lastName,
      email: user.email,
      role: roleName(user.role),
      is_active: user.isActive,
      // The contract defines joined_at as the account creation time for now.
      joined_at: user.createdAt?.toUTC().toISO() ?? null,
    }
  }
}
