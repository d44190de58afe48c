/* portal-api.md › Team: the invitation endpoints of TeamInvitationsController, acceptance included. */
import type { HttpContext } from '@adonisjs/core/http'
import {
  acceptanceProofInput,
  acceptAsExistingAccountInput,
  acceptAsNewAccountInput,
  createInvitationInput,
  listInvitationsInput,
} from '#validators/team'
import { NO_BODY } from '#validators/rules/input'
import { validateBody } from '#http/request_input'
import { NEW_PASSWORD, PAGINATION_DESCRIPTIONS, ref } from '#openapi/components'
import InvitationTransformer, {
  InvitationWithDeliveryTransformer,
} from '#transformers/invitation_transformer'
import TeamMemberTransformer from '#transformers/team_member_transformer'
import { resolveInvitation, type AcceptanceTarget } from '#services/team/invitations/accept'
import { endpointsOf } from '#http/endpoint'
import { adminStack, appClientStack, type EndpointLimit } from '#http/stacks'
import { AuditActions, type AuditAction } from '#services/audit/actions'

/** Create, resend and revoke share one bucket per administrator and merchant. */
const invitationLimit = (action: AuditAction, targetParam?: 'invitation'): EndpointLimit => ({
  name: 'invitationMutation',
  key: ['user', 'merchant'],
  per: 'administrator and merchant (create, resend and revoke share it); refusals audited',
  audit: { action, target: 'team_invitation', ...(targetParam ? { targetParam } : {}) },
})

const SENT = 'Invitation sent.'
/** Create and resend: whether the email was handed to the mail transport. */
const sentOrNot = ({ sent }: { sent: boolean }) =>
  sent
    ? SENT
    : 'The invitation was saved, but its email could not be sent. Resend the invitation to try again.'

/**
 * The invitation a proof names (404/410/409 before 422): which body is valid
 * depends on whether an account exists for the invitation email.
 */
async function invitationOfProof(ctx: HttpContext): Promise<AcceptanceTarget> {
  const { token } = await validateBody(ctx, acceptanceProofInput)
  return resolveInvitation(token)
}

export const teamInvitationsEndpoints = endpointsOf({
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
    query: { input: listInvitationsInput, descriptions: PAGINATION_DESCRIPTIONS },
    response: {
      description: 'A page of invitations.',
      list: {},
      data: ref('Invitation'),
      transformer: InvitationTransformer,
      message: 'Success',
    },
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
    body: { input: createInvitationInput },
    response: {
      status: 201,
      description: 'Created.',
      data: ref('InvitationWithDelivery'),
      transformer: InvitationWithDeliveryTransformer,
      message: SENT,
      messageOf: sentOrNot,
    },
    errors: [
      'MEMBER_ALREADY_EXISTS',
      'INVITATION_ALREADY_PENDING',
      'USER_BELONGS_TO_ANOTHER_MERCHANT',
      'USER_NOT_ELIGIBLE',
      'USER_IDENTITY_CONFLICT',
    ],
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
    body: { input: NO_BODY, required: false },
    response: {
      description: 'Resent.',
      data: ref('InvitationWithDelivery'),
      transformer: InvitationWithDeliveryTransformer,
      message: SENT,
      messageOf: sentOrNot,
    },
    errors: [
      'INVITATION_ALREADY_PENDING',
      'MEMBER_ALREADY_EXISTS',
      'USER_BELONGS_TO_ANOTHER_MERCHANT',
      'USER_NOT_ELIGIBLE',
      'USER_IDENTITY_CONFLICT',
      'INVITATION_UNAVAILABLE',
    ],
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
    body: { input: NO_BODY, required: false },
    response: { status: 204, description: 'Revoked (empty body).' },
    errors: ['INVITATION_UNAVAILABLE'],
  },
  accept: {
    method: 'post',
    path: '/api/v1/portal/team/invitations/accept',
    name: 'team.invitations.accept',
    dropsWorkWhenClientLeaves: true,
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
    resolve: invitationOfProof,
    body: {
      forms: {
        'New account': { input: acceptAsNewAccountInput, overrides: { password: NEW_PASSWORD } },
        'Existing detached account': { input: acceptAsExistingAccountInput },
      },
      formOf: ({ account }: AcceptanceTarget) =>
        account === null ? 'New account' : 'Existing detached account',
    },
    response: {
      description: 'Accepted: the member projection.',
      data: ref('TeamMember'),
      transformer: TeamMemberTransformer,
      message: 'Invitation accepted. Log in to continue.',
    },
    errors: [
      'NOT_FOUND',
      'USER_NOT_ELIGIBLE',
      'USER_IDENTITY_CONFLICT',
      'MEMBER_ALREADY_EXISTS',
      'USER_BELONGS_TO_ANOTHER_MERCHANT',
      'INVITATION_UNAVAILABLE',
    ],
  },
})
