/*
| Input of portal-api.md › Team: members, invitations and invitation acceptance.
*/
import vine from '@vinejs/vine'
import { INVITATION_STATUSES, PERSON_NAME_LENGTH, ROLE_NAMES } from '#models/team_vocabulary'
import { defineInput } from '#validators/rules/input'
import { emailField } from '#validators/rules/email'
import { paginationFields } from '#validators/rules/pagination'
import { textOfLength } from '#validators/rules/text_length'
import { matches } from '#validators/rules/pattern'
import {
  currentPassword,
  newPassword,
  passwordConfirmation,
} from '#validators/rules/password_policy'

const portalRole = () => vine.enum(ROLE_NAMES)

/** GET /portal/team/members: pagination only, other query fields ignored. */
export const listMembersInput = defineInput({ ...paginationFields }, { strict: false })

/** PATCH /portal/team/members/{member}/role (strict). */
export const changeRoleInput = defineInput({ role: portalRole() }, { strict: true })

/** GET /portal/team/invitations: pagination and `status`, other query fields ignored. */
export const listInvitationsInput = defineInput(
  {
    ...paginationFields,
    status: vine.enum(INVITATION_STATUSES).optional(),
  },
  { strict: false }
)

/** POST /portal/team/invitations (strict). */
export const createInvitationInput = defineInput(
  {
    email: emailField(),
    role: portalRole(),
  },
  { strict: true }
)

const proof = () =>
  vine
    .string()
    .fixedLength(64)
    .use(matches({ regex: /^[a-f0-9]{64}$/, must: 'be 64 lower-case hexadecimal characters' }))

const ACCEPTANCE_FIELDS = {
  token: proof(),
  first_name: vine.any().optional(),
  last_name: vine.any().optional(),
  password: vine.any().optional(),
  password_confirmation: vine.any().optional(),
  current_password: vine.any().optional(),
}

/**
 * POST /portal/team/invitations/accept, first pass: the proof's shape and no field
 * outside the acceptance form. Which fields are required or prohibited depends on
 * the invitation (new account or existing detached account), checked next.
 */
export const acceptanceProofInput = defineInput(ACCEPTANCE_FIELDS, { strict: true })

/** New account: names and a new password; `current_password` prohibited. */
export const acceptAsNewAccountInput = defineInput(
  {
    token: proof(),
    first_name: textOfLength(PERSON_NAME_LENGTH.min, PERSON_NAME_LENGTH.max),
    last_name: textOfLength(PERSON_NAME_LENGTH.min, PERSON_NAME_LENGTH.max),
    password: newPassword(),
    password_confirmation: passwordConfirmation(),
  },
  { strict: true }
)

/** Existing detached account: its current password only; names and new password prohibited. */
export const acceptAsExistingAccountInput = defineInput(
  { token: proof(), current_password: currentPassword() },
  { strict: true }
)
