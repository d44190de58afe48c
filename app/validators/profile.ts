/*
| Profile inputs (portal-api.md › Profile). Both strict: role, merchant, activation,
| verification or any other unlisted field is rejected with 422.
*/
import vine from '@vinejs/vine'
import type { FieldErrors } from '#exceptions/api_error'
import { defineInput, type InputOf, type Prechecks } from '#validators/rules/input'
import { isPlainObject } from '#support/plain_object'
import { emailField } from '#validators/rules/email'
import { textOfLength } from '#validators/rules/text_length'
import { matches, SINGLE_LINE } from '#validators/rules/pattern'
import { PERSON_NAME_LENGTH } from '#models/team_vocabulary'

// Names are trimmed centrally; control characters (line breaks, NUL) are refused.
const personName = () =>
  textOfLength(PERSON_NAME_LENGTH.min, PERSON_NAME_LENGTH.max).use(matches(SINGLE_LINE))

const PROFILE_FIELDS = ['first_name', 'last_name', 'email'] as const

/** PATCH /portal/me: at least one of first_name, last_name, email; none null or empty. */
export const profileUpdateInput = defineInput(
  {
    first_name: personName().optional(),
    last_name: personName().optional(),
    email: emailField().optional(),
  },
  { strict: true }
)

/**
 * The checks of a PATCH /portal/me body before and after validation; VineJS's
 * optional() would silently drop nulls, so they are refused here.
 */
export function profileUpdatePrechecks(
  raw: unknown
): Prechecks<InputOf<typeof profileUpdateInput>> {
  const errors: FieldErrors = {}
  if (isPlainObject(raw)) {
    for (const name of PROFILE_FIELDS) {
      if (Object.hasOwn(raw, name) && raw[name] === null) {
        errors[name] = [`The ${name} field cannot be null.`]
      }
    }
    if (!PROFILE_FIELDS.some((name) => Object.hasOwn(raw, name))) {
      errors.body = ['Provide at least one of first_name, last_name or email.']
    }
  }
  return {
    errors,
    afterValid: (input) => {
      if (!PROFILE_FIELDS.some((name) => input[name] !== undefined) && !errors.body) {
        errors.body = ['Provide at least one of first_name, last_name or email.']
      }
    },
  }
}

/** POST /portal/me/email/verify: a six-digit string (numbers are refused; leading zeros kept). */
export const emailOtpInput = defineInput(
  { otp: vine.string().use(matches({ regex: /^[0-9]{6}$/, must: 'be a string of six digits' })) },
  { strict: true }
)
