/* portal-api.md › Profile (/portal/me): the endpoints of ProfileController. */
import { emailOtpInput, profileUpdateInput, profileUpdatePrechecks } from '#validators/profile'
import { changePasswordInput } from '#validators/password'
import { NO_BODY } from '#validators/rules/input'
import { NEW_PASSWORD, ref } from '#openapi/components'
import ProfileTransformer from '#transformers/profile_transformer'
import { endpointsOf } from '#http/endpoint'
import { portalStack, type EndpointLimit } from '#http/stacks'
import type { LimitName } from '#limits/limits'
import { AuditActions, type AuditAction } from '#services/audit/actions'

const profile = ref('Profile')
const PROFILE_UPDATED = 'Profile updated.'
/** A limit of the signed-in user's own changes; a refusal is audited on the user. */
const ownLimit = (name: LimitName, action: AuditAction): EndpointLimit => ({
  name,
  key: ['user'],
  per: 'user',
  audit: { action, target: 'user', targetUser: true },
})

export const profileEndpoints = endpointsOf({
  show: {
    method: 'get',
    path: '/api/v1/portal/me',
    name: 'profile.show',
    stack: portalStack(),
    operationId: 'getProfile',
    tag: 'Profile',
    summary: "Read the signed-in user's profile",
    description: 'No input.',
    response: {
      description: 'The profile.',
      data: profile,
      transformer: ProfileTransformer,
      message: 'Success',
    },
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
    body: {
      input: profileUpdateInput,
      prechecks: profileUpdatePrechecks,
      enforcedByPrechecks: { minProperties: 1 },
    },
    response: {
      description: 'Updated profile.',
      data: profile,
      transformer: ProfileTransformer,
      message: PROFILE_UPDATED,
      messageOf: ({ emailChangeStarted }: { emailChangeStarted: boolean }) =>
        emailChangeStarted
          ? 'Profile updated. Enter the code sent to the new email address to confirm it.'
          : PROFILE_UPDATED,
    },
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
    body: { input: emailOtpInput },
    response: {
      description: 'Email replaced and verified.',
      data: profile,
      transformer: ProfileTransformer,
      message: 'Email verified.',
    },
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
    body: { input: NO_BODY, required: false },
    response: {
      description: 'Sent.',
      message: 'A new verification code has been sent to the new email address.',
    },
  },
  changePassword: {
    method: 'put',
    path: '/api/v1/portal/me/password',
    name: 'profile.password',
    dropsWorkWhenClientLeaves: true,
    stack: portalStack({ limits: [ownLimit('passwordChange', AuditActions.passwordChange)] }),
    operationId: 'changePassword',
    tag: 'Profile',
    summary: "Change the signed-in user's password",
    description:
      "Unlisted fields are ignored. A wrong `current_password` is 422 on that field. Success revokes all of the user's tokens: log in again.",
    body: { input: changePasswordInput, overrides: { password: NEW_PASSWORD } },
    response: {
      description: 'Password changed; every token of the user revoked.',
      data: ref('PasswordChanged'),
      message: 'Password changed. Log in again with the new password.',
    },
  },
})
