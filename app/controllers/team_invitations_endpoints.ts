/* portal-api.md › Team: the invitation endpoints of TeamInvitationsController, acceptance included. */
import {
  acceptAsExistingAccountInput,
  acceptAsNewAccountInput,
  createInvitationInput,
  listInvitationsInput,
} from '#validators/team'
import { NO_BODY } from '#validators/rules/input'
import { inputJsonSchema, queryParameters } from '#openapi/json_schema'
import { NEW_PASSWORD, ok, page, PAGINATION_DESCRIPTIONS, ref } from '#openapi/components'
import { adminStack, appClientStack, endpointsOf, type EndpointLimit } from '#http/endpoint'
import { AuditActions, type AuditAction } from '#services/audit/actions'

const TeamInvitationsController = () => import('#controllers/team_invitations_controller')

/** Create, resend and revoke share one bucket per administrator and merchant. */
const invitationLimit = (action: AuditAction, targetParam?: 'invitation'): EndpointLimit => ({
  name: 'invitationMutation',
  key: ['user', 'merchant'],
  per: 'administrator and merchant (create, resend and revoke share it); refusals audited',
  audit: { action, target: 'team_invitation', ...(targetParam ? { targetParam } : {}) },
})

export const teamInvitationsEndpoints = endpointsOf(TeamInvitationsController, {
  index: {
    method: 'get',
    path: '/api/v1/portal/team/invitations',
    name: 'team.invitations.index',
    stack: adminStack({ cache: 'private' }),
    operationId: 'listInvitations',
    tag: 'Team',
    summary: 'List invitations',
    description:
      'Newest first (creation time, then UUID). `status=expired` means an unconsumed pending record past its expiry. Null or empty values are invalid; other query fields are ignored.',
    query: queryParameters(listInvitationsInput, {}, PAGINATION_DESCRIPTIONS),
    responses: { 200: { description: 'A page of invitations.', schema: page(ref('Invitation')) } },
    cacheControl: 'no-store, private',
  },
  store: {
    method: 'post',
    path: '/api/v1/portal/team/invitations',
    name: 'team.invitations.store',
    stack: adminStack({
      cache: 'private',
      limits: [invitationLimit(AuditActions.invitationCreate)],
    }),
    operationId: 'createInvitation',
    tag: 'Team',
    summary: 'Invite a person to the team',
    description:
      'Strict body; `email` is normalized to lower case. The invitation is valid 48 hours; its proof is mailed as the Portal origin plus `/team/invitations/accept#token=<proof>`. When the mail transport fails the invitation stays pending and `sent` is false (resend it). 503 when the Portal URL is not configured.',
    body: { schema: inputJsonSchema(createInvitationInput) },
    responses: {
      201: {
        description: 'Created.',
        schema: ok(ref('InvitationWithDelivery'), { message: 'Invitation sent.' }),
      },
    },
    errors: [
      'MEMBER_ALREADY_EXISTS',
      'INVITATION_ALREADY_PENDING',
      'USER_BELONGS_TO_ANOTHER_MERCHANT',
      'USER_NOT_ELIGIBLE',
      'USER_IDENTITY_CONFLICT',
    ],
    cacheControl: 'no-store, private',
  },
  resend: {
    method: 'post',
    path: '/api/v1/portal/team/invitations/:invitation/resend',
    name: 'team.invitations.resend',
    stack: adminStack({
      cache: 'private',
      limits: [invitationLimit(AuditActions.invitationResend, 'invitation')],
    }),
    operationId: 'resendInvitation',
    tag: 'Team',
    summary: 'Resend an invitation',
    description:
      'No body. A new proof (the old one then answers 404), attempt count reset, new 48-hour expiry. Accepted or revoked: 410 `INVITATION_UNAVAILABLE`; another pending invitation for the same email: 409 `INVITATION_ALREADY_PENDING`. 503 when the Portal URL is not configured.',
    body: { schema: inputJsonSchema(NO_BODY), required: false },
    responses: {
      200: {
        description: 'Resent.',
        schema: ok(ref('InvitationWithDelivery'), { message: 'Invitation sent.' }),
      },
    },
    errors: [
      'INVITATION_ALREADY_PENDING',
      'MEMBER_ALREADY_EXISTS',
      'USER_BELONGS_TO_ANOTHER_MERCHANT',
      'USER_NOT_ELIGIBLE',
      'USER_IDENTITY_CONFLICT',
      'INVITATION_UNAVAILABLE',
    ],
    cacheControl: 'no-store, private',
  },
  destroy: {
    method: 'delete',
    path: '/api/v1/portal/team/invitations/:invitation',
    name: 'team.invitations.destroy',
    stack: adminStack({
      cache: 'private',
      limits: [invitationLimit(AuditActions.invitationRevoke, 'invitation')],
    }),
    operationId: 'revokeInvitation',
    tag: 'Team',
    summary: 'Revoke an invitation',
    description:
      'No body. Repeat-safe (204 again); history is preserved. An accepted invitation is 410.',
    body: { schema: inputJsonSchema(NO_BODY), required: false },
    responses: { 204: { description: 'Revoked (empty body).' } },
    errors: ['INVITATION_UNAVAILABLE'],
    cacheControl: 'no-store, private',
  },
  accept: {
    method: 'post',
    path: '/api/v1/portal/team/invitations/accept',
    name: 'team.invitations.accept',
    stack: appClientStack({
      cache: 'private',
      limits: [
        {
          name: 'invitationAcceptanceIp',
          key: ['ip'],
          per: 'client IP; refusals audited',
          audit: { action: AuditActions.invitationAccept },
        },
      ],
      afterBody: [
        {
          name: 'invitationAcceptance',
          key: ['body:token', 'ip'],
          per: 'proof hash and IP; refusals audited',
          audit: { action: AuditActions.invitationAccept },
        },
      ],
    }),
    operationId: 'acceptInvitation',
    tag: 'Team',
    summary: 'Accept an invitation (Portal application, no PAT)',
    description:
      "Strict body; the form is chosen by the server from whether an account exists for the invitation email: a new account sends names and a new password; an existing detached account sends its `current_password` only. No PAT is issued: log in next. The invitation email becomes the new account's username and email, and is verified; prior tokens of the user are revoked. Unknown or rotated proof: 404; expired, revoked, consumed or exhausted (10 wrong passwords): 410 `INVITATION_UNAVAILABLE`; wrong `current_password`: 422 on that field (counted and audited).",
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
    errors: [
      'NOT_FOUND',
      'USER_NOT_ELIGIBLE',
      'USER_IDENTITY_CONFLICT',
      'MEMBER_ALREADY_EXISTS',
      'USER_BELONGS_TO_ANOTHER_MERCHANT',
      'INVITATION_UNAVAILABLE',
    ],
    cacheControl: 'no-store, private',
  },
})
