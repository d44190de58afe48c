/*
| portal-api.md › Merchant and logo, Integration keys: request bodies.
| - PATCH /portal/merchant (strict): at least one field; none but `website` may be
|   null or empty; `website` "" becomes null. Read-only fields (id, reference_id,
|   currency, is_active, is_production, services, timestamps, fees, settlement,
|   provider settings, credentials) are unlisted, so the strict check names them in
|   the 422.
| - PUT/DELETE /portal/merchant/integration-keys/{keyType} (strict): `value` keeps its
|   exact characters (never trimmed: app/validators/rules/input.ts); DELETE does not
|   list it, so sending one is a 422.
| Lengths count characters (code points), as the contract and PostgreSQL do.
*/
import vine from '@vinejs/vine'
import type { FieldErrors } from '#exceptions/api_error'
import { defineInput, type InputOf, type Prechecks } from '#validators/rules/input'
import { isPlainObject } from '#support/plain_object'
import { currentPassword } from '#validators/rules/password_policy'
import { lengthBetween } from '#validators/rules/text_length'
import { matches, SINGLE_LINE } from '#validators/rules/pattern'
import { emailField } from '#validators/rules/email'
import { HTTPS_WEBSITE, isHttpsWebsite, WEBSITE_MAX_LENGTH } from '#validators/rules/website'
import { MERCHANT_FIELD_MAX_LENGTH as MAX } from '#models/merchant_fields'

const line = (max: number) =>
  vine
    .string()
    .use(lengthBetween({ min: 1, max }))
    .use(matches(SINGLE_LINE))

// An address may span lines; other control characters are refused.
const multiline = (max: number) =>
  vine
    .string()
    .use(lengthBetween({ min: 1, max }))
    .use(
      matches({
        regex: /^(?:[^\p{Cc}]|\r?\n|\t)*$/u,
        must: 'not contain control characters other than line breaks and tabs',
      })
    )

/** "" (null after transform), or an https URL by the website rule (rules/website.ts). */
const httpsWebsite = vine.createRule(
  (value, _options, field) => {
    if (typeof value === 'string' && value !== '' && !isHttpsWebsite(value)) {
      field.report(
        `The ${field.name} field must be an HTTPS URL of at most ${WEBSITE_MAX_LENGTH} characters, or null.`,
        'https_url',
        field
      )
    }
  },
  {
    toJSONSchema: (schema) => {
      schema.maxLength = WEBSITE_MAX_LENGTH
      schema.pattern = `^(?:${HTTPS_WEBSITE.source.slice(1, -1)})?$`
    },
  }
)

const MERCHANT_FIELDS = [
  'name',
  'contact_person',
  'email',
  'dial_code',
  'phone',
  'address',
  'website',
] as const

/** PATCH /portal/merchant (strict). */
export const merchantUpdateInput = defineInput(
  {
    name: line(MAX.name).optional(),
    contact_person: line(MAX.contact_person).optional(),
    // The one email rule, lowercased as stored (the contract's 255 is emailField's bound).
    email: emailField().optional(),
    dial_code: line(MAX.dial_code).optional(),
    phone: line(MAX.phone).optional(),
    address: multiline(MAX.address).optional(),
    website: vine
      .string()
      .use(httpsWebsite())
      .transform((value) => (value === '' ? null : value))
      .nullable()
      .optional(),
  },
  { strict: true }
)

/**
 * The checks of a PATCH /portal/merchant body before validation. VineJS's optional()
 * drops a null silently, so nulls of the fields that cannot be null are refused here,
 * and `{}` (or only nulls dropped) is refused for want of a field.
 */
export function merchantUpdatePrechecks(raw: unknown): Prechecks<MerchantUpdate> {
  const errors: FieldErrors = {}
  const atLeastOne = `Provide at least one of ${MERCHANT_FIELDS.join(', ')}.`
  if (isPlainObject(raw)) {
    for (const name of MERCHANT_FIELDS) {
      if (name !== 'website' && Object.hasOwn(raw, name) && raw[name] === null) {
        errors[name] = [`The ${name} field cannot be null.`]
      }
    }
    if (!MERCHANT_FIELDS.some((name) => Object.hasOwn(raw, name))) errors.body = [atLeastOne]
  }
  return { errors }
}

export type MerchantUpdate = InputOf<typeof merchantUpdateInput>

export const INTEGRATION_KEY_MAX_LENGTH = 4096

const reason = () => vine.string().use(lengthBetween({ min: 10, max: 500 }))

/**
 * A key value, exactly as sent: not empty, not only whitespace, at most 4,096
 * characters. Messages never quote the value.
 */
const keyValue = () =>
  vine
    .string()
    .use(lengthBetween({ min: 1, max: INTEGRATION_KEY_MAX_LENGTH }))
    .use(matches({ regex: /\S/u, must: 'contain a character other than whitespace' }))

/** PUT /portal/merchant/integration-keys/{keyType} (strict). */
export const integrationKeyPutInput = defineInput(
  { value: keyValue(), current_password: currentPassword(), reason: reason() },
  { strict: true }
)

/** DELETE /portal/merchant/integration-keys/{keyType} (strict; `value` is not accepted). */
export const integrationKeyDeleteInput = defineInput(
  { current_password: currentPassword(), reason: reason() },
  { strict: true }
)

/** The key types of the route, defined with its `{keyType}` shape (route_ids.ts). */
export type { IntegrationKeyType } from '#validators/rules/route_ids'
