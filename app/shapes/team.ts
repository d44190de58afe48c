/*
| portal-api.md › Team member and Invitation: the response shapes, each declared once
| as its JSON Schema (for the document) with its TypeScript type derived from it, which
| team_member_transformer.ts and invitation_transformer.ts return.
*/
import { schema, type Static } from '#openapi/json_schema'
import { INVITATION_STATUSES, ROLE_NAMES } from '#models/team_vocabulary'

const invitation = {
  id: schema.string({ format: 'uuid' }),
  email: schema.string(),
  role: schema.enum(ROLE_NAMES),
  status: schema.enum(INVITATION_STATUSES),
  invited_by: schema.integer({ description: 'User id of the inviting administrator.' }),
  created_at: schema.timestamp(),
  expires_at: schema.timestamp(),
}

export const TeamMember = schema.object({
  id: schema.integer(),
  first_name: schema.string(),
  last_name: schema.string(),
  email: schema.string(),
  role: schema.enum(ROLE_NAMES),
  is_active: schema.boolean(),
  joined_at: schema.nullable(schema.timestamp({ description: 'The account creation time.' })),
})
export type TeamMember = Static<typeof TeamMember>

export const Invitation = schema.object(invitation, {
  description: 'No token, hash or acceptance URL is ever returned.',
})
export type Invitation = Static<typeof Invitation>

export const InvitationWithDelivery = schema.object(
  {
    ...invitation,
    sent: schema.boolean({ description: 'Whether the email was handed to the mail transport.' }),
  },
  { description: 'Create and resend responses: the invitation plus `sent`.' }
)
export type InvitationWithDelivery = Static<typeof InvitationWithDelivery>

/** Components of the document, in its order. */
export const teamSchemas = { TeamMember, Invitation, InvitationWithDelivery }
