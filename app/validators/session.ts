import vine from '@vinejs/vine'
import { defineInput } from '#validators/rules/input'
import { loginPassword } from '#validators/rules/password_policy'

/** POST /auth/login (unlisted fields ignored). */
export const loginInput = defineInput(
  {
    username: vine.string().minLength(1).maxLength(255),
    password: loginPassword(),
  },
  { strict: false }
)
