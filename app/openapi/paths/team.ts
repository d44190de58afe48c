/* portal-api.md › Team: members, invitations and invitation acceptance. */
import {
  acceptAsExistingAccountInput,
  acceptAsNewAccountInput,
  changeRoleInput,
  createInvitationInput,
  listInvitationsInput,
  listMembersInput,
} from '#validators/team'
import { NO_BODY } from '#validators/rules/input'
import { inputJsonSchema, queryParameters, schema } from '#openapi/json_schema'
import { ok, page, NEW_PASSWORD, PAGINATION_DESCRIPTIONS } from '#openapi/components'
import type { OperationSpec } from '#openapi/operation'

const { ref } = schema
const teamLimit = (operation: string) => [
  { name: 'api' as const, per: 'user' },
  {
    name: 'teamMutation' as const,
    per: `actor, merchant and operation (\`${operation}\`); refusals audited`,
  },
]
const invitationLimit = [
  { name: 'api' as const, per: 'user' },
  {
    name: 'invitationMutation' as const,
    per: 'administrator and merchant (create, resend and revoke share it); refusals audited',
  },
]
const MEMBER_RULES =
  'A target that is missing, detached, in another merchant or internal is 404. The sole active administrator cannot be demoted or removed: 409 `LAST_ADMINISTRATOR` (inactive administrators do not count); an administrator may act on self while another active administrator remains, and their current PAT is then revoked.'

export const teamOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/v1/portal/team/members',
    operationId: 'listTeamMembers',
    tag: 'Team',
    summary: 'List team members',
    description:
      "The merchant's administrator and developer accounts (inactive included), ascending by user id. Standard pagination; other query fields are ignored.",
    access: 'pat',
    limits: [{ name: 'api', per: 'user' }],
    query: queryParameters(listMembersInput, {}, PAGINATION_DESCRIPTIONS),
    responses: { 200: { description: 'A page of members.', schema: page(ref('TeamMember')) } },
    cacheControl: 'no-store, private',
  },
  {
    method: 'patch',
    path: '/api/v1/portal/team/members/{member}/role',
    operationId: 'changeMemberRole',
    tag: 'Team',
    summary: "Change a member's role",
    description: `Strict body. The same role again is 200 with no change, no token revocation and no audit. An actual change revokes the target's tokens (they log in again); an inactive member stays inactive. ${MEMBER_RULES}`,
    access: 'admin',
    limits: teamLimit('role'),
    pathParameters: ['member'],
    body: { schema: inputJsonSchema(changeRoleInput) },
    responses: {
      200: {
        description: 'The member.',
        schema: ok(ref('TeamMember'), { message: 'Member role updated.' }),
      },
    },
    errors: { 409: ['LAST_ADMINISTRATOR'] },
    cacheControl: 'no-store, private',
  },
  {
    method: 'delete',
    path: '/api/v1/portal/team/members/{member}',
    operationId: 'removeMember',
    tag: 'Team',
    summary: 'Remove a member',
    description: `No body (extra fields 422). Detaches and deactivates the user and revokes their tokens; the user, password, transactions and audit records are preserved. Repeating is 404. ${MEMBER_RULES}`,
    access: 'admin',
    limits: teamLimit('remove'),
    pathParameters: ['member'],
    body: { schema: inputJsonSchema(NO_BODY), required: false },
    responses: { 204: { description: 'Removed (empty body).' } },
    errors: { 409: ['LAST_ADMINISTRATOR'] },
    cacheControl: 'no-store, private',
  },
  {
    method: 'get',
    path: '/api/v1/portal/team/invitations',
    operationId: 'listInvitations',
    tag: 'Team',
    summary: 'List invitations',
    description:
      'Newest first (creation time, then UUID). `status=expired` means an unconsumed pending record past its expiry. Null or empty values are invalid; other query fields are ignored.',
    access: 'admin',
    limits: [{ name: 'api', per: 'user' }],
    query: queryParameters(listInvitationsInput, {}, PAGINATION_DESCRIPTIONS),
    responses: { 200: { description: 'A page of invitations.', schema: page(ref('Invitation')) } },
    cacheControl: 'no-store, private',
  },
  {
    method: 'post',
    path: '/api/v1/portal/team/invitations',
    operationId: 'createInvitation',
    tag: 'Team',
    summary: 'Invite a person to the team',
    description:
      'Strict body; `email` is normalized to lower case. The invitation is valid 48 hours; its proof is mailed as the Portal origin plus `/team/invitations/accept#token=<proof>`. When the mail transport fails the invitation stays pending and `sent` is false (resend it). 503 when the Portal URL is not configured.',
    access: 'admin',
    limits: invitationLimit,
    body: { schema: inputJsonSchema(createInvitationInput) },
    responses: {
      201: {
        description: 'Created.',
        schema: ok(ref('InvitationWithDelivery'), { message: 'Invitation sent.' }),
      },
    },
    errors: {
      409: [
        'MEMBER_ALREADY_EXISTS',
        'INVITATION_ALREADY_PENDING',
        'USER_BELONGS_TO_ANOTHER_MERCHANT',
        'USER_NOT_ELIGIBLE',
        'USER_IDENTITY_CONFLICT',
      ],
    },
    cacheControl: 'no-store, private',
  },
  {
    method: 'post',
    path: '/api/v1/portal/team/invitations/{invitation}/resend',
    operationId: 'resendInvitation',
    tag: 'Team',
    summary: 'Resend an invitation',
    description:
      'No body. A new proof (the old one then answers 404), attempt count reset, new 48-hour expiry. Accepted or revoked: 410 `INVITATION_UNAVAILABLE`; another pending invitation for the same email: 409 `INVITATION_ALREADY_PENDING`. 503 when the Portal URL is not configured.',
    access: 'admin',
    limits: invitationLimit,
    pathParameters: ['invitation'],
    body: { schema: inputJsonSchema(NO_BODY), required: false },
    responses: {
      200: {
        description: 'Resent.',
        schema: ok(ref('InvitationWithDelivery'), { message: 'Invitation sent.' }),
      },
    },
    errors: {
      409: [
        'INVITATION_ALREADY_PENDING',
        'MEMBER_ALREADY_EXISTS',
        'USER_BELONGS_TO_ANOTHER_MERCHANT',
        'USER_NOT_ELIGIBLE',
        'USER_IDENTITY_CONFLICT',
      ],
      410: ['INVITATION_UNAVAILABLE'],
    },
    cacheControl: 'no-store, private',
  },
  {
    method: 'delete',
    path: '/api/v1/portal/team/invitations/{invitation}',
    operationId: 'revokeInvitation',
    tag: 'Team',
    summary: 'Revoke an invitation',
    description:
      'No body. Repeat-safe (204 again); history is preserved. An accepted invitation is 410.',
    access: 'admin',
    limits: invitationLimit,
    pathParameters: ['invitation'],
    body: { schema: inputJsonSchema(NO_BODY), required: false },
    responses: { 204: { description: 'Revoked (empty body).' } },
    errors: { 410: ['INVITATION_UNAVAILABLE'] },
    cacheControl: 'no-store, private',
  },
  {
    method: 'post',
    path: '/api/v1/portal/team/invitations/accept',
    operationId: 'acceptInvitation',
    tag: 'Team',
    summary: 'Accept an invitation (Portal application, no PAT)',
    description:
      "Strict body; the form is chosen by the server from whether an account exists for the invitation email: a new account sends names and a new password; an existing detached account sends its `current_password` only. No PAT is issued: log in next. The invitation email becomes the new account's username and email, and is verified; prior tokens of the user are revoked. Unknown or rotated proof: 404; expired, revoked, consumed or exhausted (10 wrong passwords): 410 `INVITATION_UNAVAILABLE`; wrong `current_password`: 422 on that field (counted and audited).",
    access: 'app',
    limits: [
      { name: 'api', per: 'client IP' },
      { name: 'invitationAcceptanceIp', per: 'client IP; refusals audited' },
      { name: 'invitationAcceptance', per: 'proof hash and IP; refusals audited' },
    ],
    body: {
      schema: {
        oneOf: [
          {
            title: 'New account',
            ...inputJsonSchema(acceptAsNewAccountInput, { password: NEW_PASSWORD }),
          },
          { title: 'Existing detached account', ...inputJsonSchema(acceptAsExistingAccountInput) },
        ],
      },
    },
    responses: {
      200: {
        description: 'Accepted: the member projection.',
        schema: ok(ref('TeamMember'), { message: 'Invitation accepted. Log in to continue.' }),
      },
    },
    errors: {
      404: ['NOT_FOUND'],
      409: [
        'USER_NOT_ELIGIBLE',
        'USER_IDENTITY_CONFLICT',
        'MEMBER_ALREADY_EXISTS',
        'USER_BELONGS_TO_ANOTHER_MERCHANT',
      ],
      410: ['INVITATION_UNAVAILABLE'],
    },
    cacheControl: 'no-store, private',
  },
]
