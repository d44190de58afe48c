/*
| Input of operator commands (decisions.md §4). Same bounds as the API resources.
*/
import vine from '@vinejs/vine'
import { PERSON_NAME_LENGTH, ROLE_NAMES } from '#models/team_vocabulary'
import { DECIMAL_ID } from '#support/decimal_id'
import { newPassword } from '#validators/rules/password_policy'
import { emailField } from '#validators/rules/email'
import { lengthBetween } from '#validators/rules/text_length'
import { matches } from '#validators/rules/pattern'
import { CURRENCY_CODE } from '#validators/rules/currency'
import { createValidator } from '#validators/rules/messages'
import { MERCHANT_FIELD_MAX_LENGTH } from '#models/merchant_fields'

const id = () =>
  vine
    .string()
    .use(matches({ regex: DECIMAL_ID, must: 'be a positive integer of at most 16 digits' }))

export const createMerchantInput = createValidator({
  name: vine
    .string()
    .trim()
    .use(lengthBetween({ min: 1, max: MERCHANT_FIELD_MAX_LENGTH.name })),
  email: emailField(),
  currency: vine.string().trim().use(matches(CURRENCY_CODE)),
  contact_person: vine
    .string()
    .trim()
    .use(lengthBetween({ min: 1, max: MERCHANT_FIELD_MAX_LENGTH.contact_person }))
    .optional(),
})

export const assignServiceInput = createValidator({
  merchant: id(),
  code: vine
    .string()
    .trim()
    .minLength(1)
    .maxLength(100)
    .use(
      matches({
        regex: /^[A-Za-z0-9_.-]+$/,
        must: 'contain only ASCII letters, digits, "_", "." and "-"',
      })
    ),
  type: vine
    .string()
    .trim()
    .use(lengthBetween({ min: 1, max: 50 })),
})

export const createPortalClientInput = createValidator({
  name: vine
    .string()
    .trim()
    .use(lengthBetween({ min: 1, max: 100 })),
  origin: vine.array(vine.string().trim().maxLength(255)).minLength(1),
})

/** user:create's flags, checked before the password is read from standard input. */
const userFields = () => ({
  merchant: id(),
  email: emailField(),
  username: vine.string().trim().minLength(3).maxLength(255).optional(),
  first_name: vine.string().trim().use(lengthBetween(PERSON_NAME_LENGTH)),
  last_name: vine.string().trim().use(lengthBetween(PERSON_NAME_LENGTH)),
  role: vine.enum(ROLE_NAMES),
})

export const createUserFlagsInput = createValidator(userFields())

export const createUserInput = createValidator({
  ...userFields(),
  password: newPassword(),
  password_confirmation: vine.string(),
})
