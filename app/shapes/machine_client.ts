/*
| portal-api.md › Machine client metadata and Credential delivery: the response
| shapes, each declared once as its JSON Schema (for the document) with its TypeScript
| type derived from it, which machine_client_transformer.ts returns.
*/
import { schema, type Static } from '#openapi/json_schema'

const metadata = {
  id: schema.integer({ description: 'Merchant ownership id (used in routes).' }),
  oauth_client_id: schema.integer(),
  label: schema.string(),
  is_active: schema.boolean({
    description:
      'Accounts for ownership state, client revocation, machine-client eligibility and rotation deadline.',
  }),
  created_at: schema.nullable(schema.timestamp()),
  last_used_at: schema.nullable(schema.timestamp()),
  revoked_at: schema.nullable(schema.timestamp()),
  rotation_deadline_at: schema.nullable(schema.timestamp()),
  replaces_merchant_oauth_client_id: schema.nullable(schema.integer()),
}

export const DeliveryReference = schema.object({
  id: schema.string({ format: 'uuid' }),
  expires_at: schema.timestamp(),
})
export type DeliveryReference = Static<typeof DeliveryReference>

export const MachineClient = schema.object(metadata, {
  description: 'Machine client metadata (without `delivery`).',
})
export type MachineClient = Static<typeof MachineClient>

export const MachineClientListItem = schema.object(
  {
    ...metadata,
    delivery: schema.nullable(schema.ref({ DeliveryReference })),
  },
  {
    description:
      '`delivery` is non-null only for the issuing administrator while client and delivery remain usable.',
  }
)
export type MachineClientListItem = Static<typeof MachineClientListItem>

export const IssuedMachineClient = schema.object({
  client: schema.ref({ MachineClient }),
  delivery: schema.ref({ DeliveryReference }),
})
export type IssuedMachineClient = Static<typeof IssuedMachineClient>

export const Credential = schema.object(
  {
    oauth_client_id: schema.integer(),
    oauth_client_secret: schema.string({ description: 'Shown once.' }),
    grant_type: schema.const('client_credentials'),
    token_url: schema.string({ format: 'uri' }),
  },
  { description: 'portal-api.md › Credential delivery: exactly four fields.' }
)
export type Credential = Static<typeof Credential>

/** Components of the document, in its order. */
export const machineClientSchemas = {
  DeliveryReference,
  MachineClient,
  MachineClientListItem,
  IssuedMachineClient,
  Credential,
}
