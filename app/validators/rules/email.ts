/*
| The one email rule of every input (profile, invitations, password reset, operator
| commands): normalized as stored (app/support/identity.ts) before the bounds, since
| normalizing can lengthen a string ("İ" → "i̇") and the 255 characters apply to
| the stored address.
*/
import vine from '@vinejs/vine'
import { normalizeIdentity } from '#support/identity'

const normalized = vine.createRule((value, _options, field) => {
  if (typeof value === 'string') field.mutate(normalizeIdentity(value), field)
})

export const emailField = () => vine.string().trim().use(normalized()).maxLength(255).email()
