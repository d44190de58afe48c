/*
| Response schemas of portal-api.md › Login user and Profile, beside the transformers
| that produce them (login_user_transformer.ts, profile_transformer.ts). The
| response validation of the test suite holds the two together.
*/
import { schema } from '#openapi/json_schema'

export const profileSchemas = {
  LoginUser: schema.object(
    {
      id: schema.integer(),
      reference_id: schema.string(),
      merchant_reference_id: schema.string(),
      merchant_id: schema.integer(),
      first_name: schema.string(),
      last_name: schema.string(),
      role: schema.enum([1, 10], { description: '1 administrator, 10 developer' }),
      email: schema.string(),
      email_verified_at: schema.nullable(schema.timestamp()),
      created_at: schema.timestamp(),
    },
    { description: 'portal-api.md › Login user (`data.user` of the login response).' }
  ),
  LoginResult: schema.object({
    access_token: schema.string({ description: 'The PAT; send it as `Authorization: Bearer`.' }),
    token_type: schema.const('Bearer'),
    expires_at: schema.timestamp(),
    user: schema.ref('LoginUser'),
  }),
  Profile: schema.object(
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
      role: schema.enum(['administrator', 'developer']),
      is_active: schema.boolean(),
      merchant: schema.object({
        id: schema.integer(),
        reference_id: schema.string(),
        name: schema.string(),
      }),
    },
    { description: 'portal-api.md › Profile. No hash, OTP, counter or secret.' }
  ),
  PasswordChanged: schema.object({ reauthentication_required: schema.const(true) }),
}
