/*
| Input of operator commands (decisions.md §4). Same bounds as the API resources.
*/
import vine from '@vinejs/vine'
import { newPassword } from '#validators/rules/password_policy'
import { emailField } from '#validators/rules/email'
import { lengthBetween } from '#validators/rules/text_length'

const id = () => vine.string().regex(/^[1-9][0-9]{0,15}$/)

export const createMerchantInput = vine.create(
  vine.object({
    name: vine
      .string()
      .trim()
      .use(lengthBetween({ min: 1, max: 150 })),
    email: emailField(),
    currency: vine
      .string()
      .trim()
      .regex(/^[A-Z]{3}$/),
    contact_person: vine
      .string()
      .trim()
      .use(lengthBetween({ min: 1, max: 100 }))
      .optional(),
  })
)

export const assignServiceInput = vine.create(
  vine.object({
    merchant: id(),
    code: vine
      .string()
      .trim()
      .minLength(1)
      .maxLength(100)
      .regex(/^[A-Za-z0-9_.-]+$/),
    type: vine
      .string()
      .trim()
      .use(lengthBetween({ min: 1, max: 50 })),
  })
)

export const createPortalClientInput = vine.create(
  vine.object({
    name: vine
      .string()
      .trim()
      .use(lengthBetween({ min: 1, max: 100 })),
    origin: vine.array(vine.string().trim().maxLength(255)).minLength(1),
  })
)

/** user:create's flags, checked before the password is read from standard input. */
const userFields = () => ({
  merchant: id(),
  email: emailField(),
  username: vine.string().trim().minLength(3).maxLength(255).optional(),
  first_name: vine
    .string()
    .trim()
    .use(lengthBetween({ min: 1, max: 50 })),
  last_name: vine
    .string()
    .trim()
    .use(lengthBetween({ min: 1, max: 50 })),
  role: vine.enum(['administrator', 'developer'] as const),
})

export const createUserFlagsInput = vine.create(vine.object(userFields()))

export const createUserInput = vine.create(
  vine.object({
    ...userFields(),
    password: newPassword(),
    password_confirmation: vine.string(),
  })
)
