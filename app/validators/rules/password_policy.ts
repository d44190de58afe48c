/*
| Password rules (portal-api.md, Authentication rule 8). New passwords: 12-128
| characters with upper case, lower case, a digit and a symbol, and an identical
| (untrimmed) confirmation. Login keeps a 6-character minimum for older accounts.
| Lengths count characters (code points), not UTF-16 units.
*/
import vine from '@vinejs/vine'
import { lengthBetween, textOfLength } from '#validators/rules/text_length'
import { matches } from '#validators/rules/pattern'

/** A new password's length in characters, and what it must contain besides. */
export const NEW_PASSWORD_LENGTH = { min: 12, max: 128 }
export const NEW_PASSWORD_CHARACTERS =
  'an upper-case letter, a lower-case letter, a digit and a symbol'

export const newPassword = () =>
  textOfLength(NEW_PASSWORD_LENGTH.min, NEW_PASSWORD_LENGTH.max)
    .use(
      matches({
        regex: /^(?=[\s\S]*[A-Z])(?=[\s\S]*[a-z])(?=[\s\S]*[0-9])(?=[\s\S]*[^A-Za-z0-9])/,
        must: `contain ${NEW_PASSWORD_CHARACTERS}`,
      })
    )
    .confirmed({ confirmationField: 'password_confirmation' })

export const passwordConfirmation = () => vine.string().use(lengthBetween({ min: 0, max: 128 }))

export const currentPassword = () => textOfLength(1, 128)

export const loginPassword = () => textOfLength(6, 128)
