/*
| portal-api.md › Merchant resource, logo and Integration keys presence: the response
| shapes, each declared once as its JSON Schema (for the document) with its TypeScript
| type derived from it, which merchant_transformer.ts returns.
*/
import { schema, type Static } from '#openapi/json_schema'
import { MERCHANT_FIELD_MAX_LENGTH as MAX } from '#models/merchant_fields'
import { HTTPS_WEBSITE } from '#validators/rules/website'

export const MerchantService = schema.object({
  id: schema.integer(),
  code: schema.string(),
  type: schema.string(),
  is_active: schema.boolean({ description: 'Both the service and the assignment are active.' }),
  is_production: schema.boolean({ description: "The assignment's stored environment flag." }),
})
export type MerchantService = Static<typeof MerchantService>

export const Merchant = schema.object(
  {
    id: schema.integer({ readOnly: true }),
    reference_id: schema.string({ readOnly: true }),
    name: schema.string({ minLength: 1, maxLength: MAX.name }),
    contact_person: schema.nullable(schema.string({ minLength: 1, maxLength: MAX.contact_person })),
    email: schema.string({ maxLength: MAX.email, description: 'Business contact only.' }),
    dial_code: schema.nullable(schema.string({ maxLength: MAX.dial_code })),
    phone: schema.nullable(schema.string({ maxLength: MAX.phone })),
    address: schema.nullable(schema.string({ maxLength: MAX.address })),
    website: schema.nullable(
      schema.string({ format: 'uri', maxLength: MAX.website, pattern: HTTPS_WEBSITE.source })
    ),
    logo_url: schema.nullable(schema.string()),
    currency: schema.string({ readOnly: true }),
    is_active: schema.boolean({ readOnly: true }),
    is_production: schema.boolean({ readOnly: true }),
    services: schema.array(schema.ref({ MerchantService }), { readOnly: true }),
    created_at: schema.timestamp({ readOnly: true }),
    updated_at: schema.timestamp({ readOnly: true }),
  },
  {
    description:
      'No OAuth secret, provider credential, integration key, callback setting, balance or fee. `contact_person`, `dial_code`, `phone` and `address` are null until first set (a merchant created by the operator command may lack them).',
  }
)
export type Merchant = Static<typeof Merchant>

export const MerchantLogo = schema.object({
  url: schema.nullable(
    schema.string({ description: 'Null when the stored file is missing or unusable.' })
  ),
})
export type MerchantLogo = Static<typeof MerchantLogo>

export const IntegrationKeysPresence = schema.object(
  {
    has_authentication_token: schema.boolean(),
    has_secret_key: schema.boolean(),
    updated_at: schema.nullable(schema.timestamp()),
  },
  { description: 'Presence only: values are never readable.' }
)
export type IntegrationKeysPresence = Static<typeof IntegrationKeysPresence>

/** Components of the document, in its order. */
export const merchantSchemas = { MerchantService, Merchant, MerchantLogo, IntegrationKeysPresence }
