/*
| Password reset and change inputs (portal-api.md › Login and session, Profile;
| Authentication rule 8). These endpoints ignore unlisted fields.
*/
import vine from '@vinejs/vine'
import { defineInput } from '#validators/rules/input'
import { emailField } from '#validators/rules/email'
import {
  currentPassword,
  newPassword,
  passwordConfirmation,
} from '#validators/rules/password_policy'
import { parseHttpUrl } from '#support/portal_url'

// Reported as `http_url`: under VineJS's rule name `url` the messages provider put
// its own "must be a valid URL" in place of this message.
const absoluteHttpUrl = vine.createRule((value, _options, field) => {
  if (typeof value !== 'string' || !parseHttpUrl(value)) {
    field.report('The {{ field }} field must be an absolute http or https URL.', 'http_url', field)
  }
})

/** POST /auth/reset-password/reset-link */
export const resetLinkInput = defineInput(
  {
    email: emailField(),
    reset_url: vine.string().maxLength(150).use(absoluteHttpUrl()),
  },
  { strict: false }
)

/** POST /auth/reset-password/new-password */
export const newPasswordInput = defineInput(
  {
    email: emailField(),
    token: vine.string().minLength(1).maxLength(255),
    password: newPassword(),
    password_confirmation: passwordConfirmation(),
  },
  { strict: false }
)

/** PUT /portal/me/password */
export const changePasswordInput = defineInput(
  {
    current_password: currentPassword(),
    password: newPassword(),
    password_confirmation: passwordConfirmation(),
  },
  { strict: false }
)
