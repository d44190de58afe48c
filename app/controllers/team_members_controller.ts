import type { HttpContext } from '@adonisjs/core/http'
import type { UserActor } from '#auth/actor'
import type { InputValue, PageRequest } from '#http/endpoint'
import { listMembers } from '#services/team/list_members'
import { changeMemberRole } from '#services/team/change_role'
import { removeMember } from '#services/team/remove_member'
import type { teamMembersEndpoints as endpoints } from '#controllers/team_members_endpoints'

/** portal-api.md › Team (members). */
export default class TeamMembersController {
  /** GET /portal/team/members */
  async index(_input: object, actor: UserActor, _ctx: HttpContext, page: PageRequest) {
    return listMembers(actor, page)
  }

  /** PATCH /portal/team/members/{member}/role */
  async updateRole(
    input: InputValue<typeof endpoints.updateRole>,
    actor: UserActor,
    ctx: HttpContext
  ) {
    return changeMemberRole(actor, ctx.params.member, input)
  }

  /** DELETE /portal/team/members/{member} */
  async destroy(_input: object, actor: UserActor, ctx: HttpContext) {
    await removeMember(actor, ctx.params.member)
  }
}
