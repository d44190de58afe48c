/*
| portal-api.md › Login user and Profile: the response shapes, each declared once as
| its JSON Schema (for the document) with its TypeScript type derived from it, which
| login_user_transformer.ts and profile_transformer.ts return.
*/
import { schema, type Static } from '#openapi/json_schema'
import { ROLE_NAMES, ROLE_VALUES } from '#models/team_vocabulary'

export const LoginUser = schema.object(
  {
    id: schema.integer(),
    reference_id: schema.string(),
    merchant_reference_id: schema.string(),
    merchant_id: schema.integer(),
    first_name: schema.string(),
    last_name: schema.string(),
    role: schema.enum(ROLE_VALUES, { description: '1 administrator, 10 developer' }),
    email: schema.string(),
    email_verified_at: schema.nullable(schema.timestamp()),
    created_at: schema.timestamp(),
  },
  { description: 'portal-api.md › Login user (`data.user` of the login response).' }
)
export type LoginUser = Static<typeof LoginUser>

export const LoginResult = schema.object({
  access_token: schema.string({ description: 'The PAT; send it as `Authorization: Bearer`.' }),
  token_type: schema.const('Bearer'),
  expires_at: schema.timestamp(),
  user: schema.ref({ LoginUser }),
})
export type LoginResult = Static<typeof LoginResult>

export const Profile = schema.object(
  {
    id: schema.integer(),
    reference_id: schema.string(),
    first_name: schema.string(),
    last_name: schema.string(),
    username: schema.string({ description: 'Never changed by an email change.' }),
    email: schema.string({ description: 'The current login email.' }),
    pending_email: schema.nullable(schema.string()),
    pending_email_expires_at: schema.nullable(schema.timestamp()),
    email_verified_at: schema.nullable(schema.timestamp()),
    role: schema.enum(ROLE_NAMES),
    is_active: schema.boolean(),
    merchant: schema.object({
      id: schema.integer(),
      reference_id: schema.string(),
      name: schema.string(),
    }),
  },
  { description: 'portal-api.md › Profile. No hash, OTP, counter or secret.' }
)
export type Profile = Static<typeof Profile>

export const PasswordChanged = schema.object({ reauthentication_required: schema.const(true) })
export type PasswordChanged = Static<typeof PasswordChanged>

/** Components of the document, in its order. */
export const profileSchemas = { LoginUser, LoginResult, Profile, PasswordChanged }
