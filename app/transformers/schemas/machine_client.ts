/*
| Response schemas of portal-api.md › Machine client metadata and Credential delivery,
| beside machine_client_transformer.ts.
*/
import { schema } from '#openapi/json_schema'

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

export const machineClientSchemas = {
  DeliveryReference: schema.object({
    id: schema.string({ format: 'uuid' }),
    expires_at: schema.timestamp(),
  }),
  MachineClient: schema.object(metadata, {
    description: 'Machine client metadata (without `delivery`).',
  }),
  MachineClientListItem: schema.object(
    {
      ...metadata,
      delivery: schema.nullable(schema.ref('DeliveryReference')),
    },
    {
      description:
        '`delivery` is non-null only for the issuing administrator while client and delivery remain usable.',
    }
  ),
  IssuedMachineClient: schema.object({
    client: schema.ref('MachineClient'),
    delivery: schema.ref('DeliveryReference'),
  }),
  Credential: schema.object(
    {
      oauth_client_id: schema.integer(),
      oauth_client_secret: schema.string({ description: 'Shown once.' }),
      grant_type: schema.const('client_credentials'),
      token_url: schema.string({ format: 'uri' }),
    },
    { description: 'portal-api.md › Credential delivery: exactly four fields.' }
  ),
}
