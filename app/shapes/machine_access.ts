/*
| Machine access: the token response of /oauth/token (RFC 6749 §5.1, no envelope) and
| whom a machine token acts for (the merchant integration API), each declared once as
| its JSON Schema (inline in the document) with its TypeScript type derived from it.
*/
import { schema, type Static } from '#openapi/json_schema'

export const MachineToken = schema.object({
  token_type: schema.const('Bearer'),
  expires_in: schema.integer({ minimum: 1, description: 'Seconds.' }),
  access_token: schema.string(),
})
export type MachineToken = Static<typeof MachineToken>

export const WhoAmI = schema.object({
  merchant_reference_id: schema.string(),
  oauth_client_id: schema.integer(),
  scopes: schema.array(schema.string()),
  expires_at: schema.nullable(schema.timestamp()),
})
export type WhoAmI = Static<typeof WhoAmI>
