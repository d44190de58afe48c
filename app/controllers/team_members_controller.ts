import type { HttpContext } from '@adonisjs/core/http'
import { noContent, pageMeta, respond } from '#http/responses'
import { NO_BODY } from '#validators/rules/input'
import { validateBody, validateQuery } from '#http/request_input'
import { pageOf } from '#validators/rules/pagination'
import { changeRoleInput, listMembersInput } from '#validators/team'
import { listMembers } from '#services/team/list_members'
import { changeMemberRole } from '#services/team/change_role'
import { removeMember } from '#services/team/remove_member'
import TeamMemberTransformer from '#transformers/team_member_transformer'

/** portal-api.md › Team (members). */
export default class TeamMembersController {
  /** GET /portal/team/members */
  async index(ctx: HttpContext) {
    const input = await validateQuery(ctx, listMembersInput)
    const { page, perPage } = pageOf(input)
    const { items, total } = await listMembers(ctx.actor!, { page, perPage })
    return respond(ctx, 'Success', TeamMemberTransformer.transform(items), {
      meta: { ...pageMeta(page, perPage, total) },
    })
  }

  /** PATCH /portal/team/members/{member}/role */
  async updateRole(ctx: HttpContext) {
    const input = await validateBody(ctx, changeRoleInput)
    const member = await changeMemberRole(ctx.actor!, ctx.params.member, input)
    return respond(ctx, 'Member role updated.', TeamMemberTransformer.transform(member))
  }

  /** DELETE /portal/team/members/{member} */
  async destroy(ctx: HttpContext) {
    await validateBody(ctx, NO_BODY)
    await removeMember(ctx.actor!, ctx.params.member)
    return noContent(ctx)
  }
}
