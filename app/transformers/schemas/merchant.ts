/*
| Response schemas of portal-api.md › Merchant, logo and Integration keys presence.
| The shapes app/transformers/merchant_transformer.ts returns (the suite validates
| every response against them, so a difference fails a test).
*/
import { schema } from '#openapi/json_schema'

export const merchantSchemas = {
  MerchantService: schema.object({
    id: schema.integer(),
    code: schema.string(),
    type: schema.string(),
    is_active: schema.boolean({ description: 'Both the service and the assignment are active.' }),
    is_production: schema.boolean({ description: "The assignment's stored environment flag." }),
  }),
  Merchant: schema.object(
    {
      id: schema.integer({ readOnly: true }),
      reference_id: schema.string({ readOnly: true }),
      name: schema.string({ minLength: 1, maxLength: 150 }),
      contact_person: schema.nullable(schema.string({ minLength: 1, maxLength: 100 })),
      email: schema.string({ maxLength: 255, description: 'Business contact only.' }),
      dial_code: schema.nullable(schema.string({ maxLength: 8 })),
      phone: schema.nullable(schema.string({ maxLength: 30 })),
      address: schema.nullable(schema.string({ maxLength: 500 })),
      website: schema.nullable(schema.string({ format: 'uri', maxLength: 2048 })),
      logo_url: schema.nullable(schema.string()),
      currency: schema.string({ readOnly: true }),
      is_active: schema.boolean({ readOnly: true }),
      is_production: schema.boolean({ readOnly: true }),
      services: schema.array(schema.ref('MerchantService'), { readOnly: true }),
      created_at: schema.timestamp({ readOnly: true }),
      updated_at: schema.timestamp({ readOnly: true }),
    },
    {
      description:
        'No OAuth secret, provider credential, integration key, callback setting, balance or fee. `contact_person`, `dial_code`, `phone` and `address` are null until first set (a merchant created by the operator command may lack them).',
    }
  ),
  MerchantLogo: schema.object({
    url: schema.nullable(
      schema.string({ description: 'Null when the stored file is missing or unusable.' })
    ),
  }),
  IntegrationKeysPresence: schema.object(
    {
      has_authentication_token: schema.boolean(),
      has_secret_key: schema.boolean(),
      updated_at: schema.nullable(schema.timestamp()),
    },
    { description: 'Presence only: values are never readable.' }
  ),
}
