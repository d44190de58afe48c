/* portal-api.md › Profile (/portal/me): the endpoints of ProfileController. */
import { emailOtpInput, profileUpdateInput } from '#validators/profile'
import { changePasswordInput } from '#validators/password'
import { NO_BODY } from '#validators/rules/input'
import { inputJsonSchema } from '#openapi/json_schema'
import { messageOnly, NEW_PASSWORD, ok, ref } from '#openapi/components'
import { endpointsOf, portalStack, type EndpointLimit } from '#http/endpoint'
import type { LimitName } from '#limits/limits'
import { AuditActions, type AuditAction } from '#services/audit/actions'

const ProfileController = () => import('#controllers/profile_controller')

const profile = ref('Profile')
/** A limit of the signed-in user's own changes; a refusal is audited on the user. */
const ownLimit = (name: LimitName, action: AuditAction): EndpointLimit => ({
  name,
  key: ['user'],
  per: 'user',
  audit: { action, target: 'user', targetUser: true },
})

export const profileEndpoints = endpointsOf(ProfileController, {
  show: {
    method: 'get',
    path: '/api/v1/portal/me',
    name: 'profile.show',
    stack: portalStack(),
    operationId: 'getProfile',
    tag: 'Profile',
    summary: "Read the signed-in user's profile",
    description: 'No input.',
    responses: {
      200: { description: 'The profile.', schema: ok(profile, { message: 'Success' }) },
    },
    cacheControl: 'no-store',
  },
  update: {
    method: 'patch',
    path: '/api/v1/portal/me',
    name: 'profile.update',
    stack: portalStack({ limits: [ownLimit('profileUpdate', AuditActions.profileUpdate)] }),
    operationId: 'updateProfile',
    tag: 'Profile',
    summary: 'Update names or start an email change',
    description:
      "Strict body: at least one of `first_name`, `last_name`, `email`; `{}`, null or empty values are invalid. A different `email` (trimmed, lowercased, unique against other users' emails, pending emails and usernames) becomes pending for 15 minutes and an OTP plus a signed link are mailed to it after the commit; the login email is unchanged until verified. The current email cancels a pending change. A taken email is 422 on `email` with no change to names. 503 when the Portal URL configuration is unusable for the email change.",
    body: { schema: { ...inputJsonSchema(profileUpdateInput), minProperties: 1 } },
    responses: {
      200: {
        description: 'Updated profile.',
        schema: ok(profile, { message: 'Profile updated.' }),
      },
    },
    cacheControl: 'no-store',
  },
  verifyEmail: {
    method: 'post',
    path: '/api/v1/portal/me/email/verify',
    name: 'profile.email.verify',
    stack: portalStack({ limits: [ownLimit('otpVerify', AuditActions.emailVerify)] }),
    operationId: 'verifyEmailOtp',
    tag: 'Profile',
    summary: 'Confirm a pending email change with its OTP',
    description:
      'Strict body. `otp` is a string of six digits (JSON numbers are invalid; leading zeros kept). An incorrect, missing or expired proof is 422 and counted; after five incorrect attempts 429 `RATE_LIMITED` until a resend. Existing PATs are preserved.',
    body: { schema: inputJsonSchema(emailOtpInput) },
    responses: {
      200: {
        description: 'Email replaced and verified.',
        schema: ok(profile, { message: 'Email verified.' }),
      },
    },
    cacheControl: 'no-store',
  },
  resendEmail: {
    method: 'post',
    path: '/api/v1/portal/me/email/resend',
    name: 'profile.email.resend',
    stack: portalStack({ limits: [ownLimit('emailResend', AuditActions.emailResend)] }),
    operationId: 'resendEmailVerification',
    tag: 'Profile',
    summary: 'Send a new OTP and link for the pending email',
    description:
      'No body (any field is rejected with 422). New OTP, attempt counter reset, expiry restarted, old link invalid. 422 without a pending, still available replacement; 503 when the Portal URL configuration is unusable.',
    body: { schema: inputJsonSchema(NO_BODY), required: false },
    responses: {
      200: {
        description: 'Sent.',
        schema: messageOnly('A new verification code has been sent to the new email address.'),
      },
    },
    cacheControl: 'no-store',
  },
  changePassword: {
    method: 'put',
    path: '/api/v1/portal/me/password',
    name: 'profile.password',
    stack: portalStack({ limits: [ownLimit('passwordChange', AuditActions.passwordChange)] }),
    operationId: 'changePassword',
    tag: 'Profile',
    summary: "Change the signed-in user's password",
    description:
      "Unlisted fields are ignored. A wrong `current_password` is 422 on that field. Success revokes all of the user's tokens: log in again.",
    body: { schema: inputJsonSchema(changePasswordInput, { password: NEW_PASSWORD }) },
    responses: {
      200: {
        description: 'Password changed; every token of the user revoked.',
        schema: ok(ref('PasswordChanged'), {
          message: 'Password changed. Log in again with the new password.',
        }),
      },
    },
    cacheControl: 'no-store',
  },
})
