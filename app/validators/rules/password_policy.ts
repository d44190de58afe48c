/*
| Password rules (portal-api.md, Authentication rule 8). New passwords: 12-128
| characters with upper case, lower case, a digit and a symbol, and an identical
| (untrimmed) confirmation. Login keeps a 6-character minimum for older accounts.
*/
import vine from '@vinejs/vine'

export const newPassword = () =>
  vine
    .string()
    .minLength(12)
    .maxLength(128)
    .regex(/[A-Z]/)
    .regex(/[a-z]/)
    .regex(/[0-9]/)
    .regex(/[^A-Za-z0-9]/)
    .confirmed({ confirmationField: 'password_confirmation' })

export const passwordConfirmation = () => vine.string().maxLength(128)

export const currentPassword = () => vine.string().minLength(1).maxLength(128)

export const loginPassword = () => vine.string().minLength(6).maxLength(128)
