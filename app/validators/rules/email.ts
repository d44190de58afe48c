/*
| The one email rule of every input (profile, invitations, password reset, merchant,
| operator commands), and the OpenAPI document's `pattern` for it (with
| `format: idn-email`, since addresses in any script are accepted, RFC 6531):
| - a local part of atoms (RFC 5322's ASCII characters, and letters, marks and digits
|   of any script) separated by single dots, no quoted form, at most 64 characters;
| - `@` and a domain of at least two labels (domain_name.ts): `j@info` is refused;
| - at most 254 characters in all (RFC 5321's path limit, inside the contract's 255).
| Lengths count characters (code points), as JSON Schema does. The rule is checked on
| the value as sent (after trimming); then the address is normalized as stored
| (app/support/identity.ts), and the contract's 255 applies to the stored form, since
| normalizing can lengthen a string ("İ" → "i̇").
*/
import vine from '@vinejs/vine'
import { normalizeIdentity } from '#support/identity'
import { INTERNATIONAL_DOTTED_DOMAIN } from '#validators/rules/domain_name'

const ATOM = "[\\p{L}\\p{M}\\p{N}A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"

/** The whole rule as one anchored expression, published as the field's pattern. */
export const EMAIL_ADDRESS = new RegExp(
  `^(?=[^@]{1,64}@)(?=.{1,254}$)${ATOM}(?:\\.${ATOM})*@${INTERNATIONAL_DOTTED_DOMAIN}$`,
  'u'
)

const emailAddress = vine.createRule(
  (value, _options, field) => {
    if (typeof value === 'string' && !EMAIL_ADDRESS.test(value)) {
      field.report(`The ${field.name} field must be a valid email address.`, 'emailAddress', field)
    }
  },
  {
    toJSONSchema: (schema) => {
      schema.format = 'idn-email'
      schema.pattern = EMAIL_ADDRESS.source
    },
  }
)

const normalized = vine.createRule((value, _options, field) => {
  if (typeof value === 'string') field.mutate(normalizeIdentity(value), field)
})

export const emailField = () =>
  vine.string().trim().use(emailAddress()).use(normalized()).maxLength(255)
