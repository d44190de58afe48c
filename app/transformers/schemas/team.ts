/*
| Response schemas of portal-api.md › Team member and Invitation, beside
| team_member_transformer.ts and invitation_transformer.ts.
*/
import { schema } from '#openapi/json_schema'

const invitation = {
  id: schema.string({ format: 'uuid' }),
  email: schema.string(),
  role: schema.enum(['administrator', 'developer']),
  status: schema.enum(['pending', 'accepted', 'expired', 'revoked']),
  invited_by: schema.integer({ description: 'User id of the inviting administrator.' }),
  created_at: schema.timestamp(),
  expires_at: schema.timestamp(),
}

export const teamSchemas = {
  TeamMember: schema.object({
    id: schema.integer(),
    first_name: schema.string(),
    last_name: schema.string(),
    email: schema.string(),
    role: schema.enum(['administrator', 'developer']),
    is_active: schema.boolean(),
    joined_at: schema.nullable(schema.timestamp({ description: 'The account creation time.' })),
  }),
  Invitation: schema.object(invitation, {
    description: 'No token, hash or acceptance URL is ever returned.',
  }),
  InvitationWithDelivery: schema.object(
    {
      ...invitation,
      sent: schema.boolean({ description: 'Whether the email was handed to the mail transport.' }),
    },
    { description: 'Create and resend responses: the invitation plus `sent`.' }
  ),
}
