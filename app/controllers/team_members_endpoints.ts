/* portal-api.md › Team: the member endpoints of TeamMembersController. */
import { changeRoleInput, listMembersInput } from '#validators/team'
import { NO_BODY } from '#validators/rules/input'
import { PAGINATION_DESCRIPTIONS, ref } from '#openapi/components'
import TeamMemberTransformer from '#transformers/team_member_transformer'
import { endpointsOf } from '#http/endpoint'
import { adminStack, portalStack, type EndpointLimit } from '#http/stacks'
import { AuditActions, type AuditAction } from '#services/audit/actions'

/** Role change and removal: one bucket per actor, merchant and operation. */
const teamLimit = (operation: 'role' | 'remove', action: AuditAction): EndpointLimit => ({
  name: 'teamMutation',
  key: ['user', 'merchant', `op:${operation}`],
  per: `actor, merchant and operation (\`${operation}\`); refusals audited`,
  audit: { action, target: 'user', targetParam: 'member' },
})
const MEMBER_RULES =
  'A target that is missing, detached, in another merchant or internal is 404. The sole active administrator cannot be demoted or removed: 409 `LAST_ADMINISTRATOR` (inactive administrators do not count); an administrator may act on self while another active administrator remains, and their current PAT is then revoked.'

export const teamMembersEndpoints = endpointsOf({
  index: {
    method: 'get',
    path: '/api/v1/portal/team/members',
    name: 'team.members.index',
    stack: portalStack({ cache: 'private' }),
    operationId: 'listTeamMembers',
    tag: 'Team',
    summary: 'List team members',
    description:
      "The merchant's administrator and developer accounts (inactive included), ascending by user id. Standard pagination; other query fields are ignored.",
    query: { input: listMembersInput, descriptions: PAGINATION_DESCRIPTIONS },
    response: {
      description: 'A page of members.',
      list: {},
      data: ref('TeamMember'),
      transformer: TeamMemberTransformer,
      message: 'Success',
    },
  },
  updateRole: {
    method: 'patch',
    path: '/api/v1/portal/team/members/:member/role',
    name: 'team.members.role',
    stack: adminStack({
      cache: 'private',
      limits: [teamLimit('role', AuditActions.teamMemberRoleChange)],
    }),
    operationId: 'changeMemberRole',
    tag: 'Team',
    summary: "Change a member's role",
    description: `Strict body. The same role again is 200 with no change, no token revocation and no audit. An actual change revokes the target's tokens (they log in again); an inactive member stays inactive. ${MEMBER_RULES}`,
    body: { input: changeRoleInput },
    response: {
      description: 'The member.',
      data: ref('TeamMember'),
      transformer: TeamMemberTransformer,
      message: 'Member role updated.',
    },
    errors: ['LAST_ADMINISTRATOR'],
  },
  destroy: {
    method: 'delete',
    path: '/api/v1/portal/team/members/:member',
    name: 'team.members.destroy',
    stack: adminStack({
      cache: 'private',
      limits: [teamLimit('remove', AuditActions.teamMemberRemove)],
    }),
    operationId: 'removeMember',
    tag: 'Team',
    summary: 'Remove a member',
    description: `No body (extra fields 422). Detaches and deactivates the user and revokes their tokens; the user, password, transactions and audit records are preserved. Repeating is 404. ${MEMBER_RULES}`,
    body: { input: NO_BODY, required: false },
    response: { status: 204, description: 'Removed (empty body).' },
    errors: ['LAST_ADMINISTRATOR'],
  },
})
