/* portal-api.md › Profile (/portal/me) and the signed email verification link. */
import { emailOtpInput, profileUpdateInput } from '#validators/profile'
import { changePasswordInput } from '#validators/password'
import { NO_BODY } from '#validators/rules/input'
import { inputJsonSchema, schema } from '#openapi/json_schema'
import { messageOnly, ok, NEW_PASSWORD } from '#openapi/components'
import type { OperationSpec } from '#openapi/operation'

const profile = schema.ref('Profile')

export const profileOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/v1/portal/me',
    operationId: 'getProfile',
    tag: 'Profile',
    summary: "Read the signed-in user's profile",
    description: 'No input.',
    access: 'pat',
    limits: [{ name: 'api', per: 'user' }],
    responses: {
      200: { description: 'The profile.', schema: ok(profile, { message: 'Success' }) },
    },
    cacheControl: 'no-store',
  },
  {
    method: 'patch',
    path: '/api/v1/portal/me',
    operationId: 'updateProfile',
    tag: 'Profile',
    summary: 'Update names or start an email change',
    description:
      "Strict body: at least one of `first_name`, `last_name`, `email`; `{}`, null or empty values are invalid. A different `email` (trimmed, lowercased, unique against other users' emails, pending emails and usernames) becomes pending for 15 minutes and an OTP plus a signed link are mailed to it after the commit; the login email is unchanged until verified. The current email cancels a pending change. A taken email is 422 on `email` with no change to names. 503 when the Portal URL configuration is unusable for the email change.",
    access: 'pat',
    limits: [
      { name: 'api', per: 'user' },
      { name: 'profileUpdate', per: 'user' },
    ],
    body: { schema: { ...inputJsonSchema(profileUpdateInput), minProperties: 1 } },
    responses: {
      200: {
        description: 'Updated profile.',
        schema: ok(profile, { message: 'Profile updated.' }),
      },
    },
    cacheControl: 'no-store',
  },
  {
    method: 'post',
    path: '/api/v1/portal/me/email/verify',
    operationId: 'verifyEmailOtp',
    tag: 'Profile',
    summary: 'Confirm a pending email change with its OTP',
    description:
      'Strict body. `otp` is a string of six digits (JSON numbers are invalid; leading zeros kept). An incorrect, missing or expired proof is 422 and counted; after five incorrect attempts 429 `RATE_LIMITED` until a resend. Existing PATs are preserved.',
    access: 'pat',
    limits: [
      { name: 'api', per: 'user' },
      { name: 'otpVerify', per: 'user' },
    ],
    body: { schema: inputJsonSchema(emailOtpInput) },
    responses: {
      200: {
        description: 'Email replaced and verified.',
        schema: ok(profile, { message: 'Email verified.' }),
      },
    },
    cacheControl: 'no-store',
  },
  {
    method: 'post',
    path: '/api/v1/portal/me/email/resend',
    operationId: 'resendEmailVerification',
    tag: 'Profile',
    summary: 'Send a new OTP and link for the pending email',
    description:
      'No body (any field is rejected with 422). New OTP, attempt counter reset, expiry restarted, old link invalid. 422 without a pending, still available replacement; 503 when the Portal URL configuration is unusable.',
    access: 'pat',
    limits: [
      { name: 'api', per: 'user' },
      { name: 'emailResend', per: 'user' },
    ],
    body: { schema: inputJsonSchema(NO_BODY), required: false },
    responses: {
      200: {
        description: 'Sent.',
        schema: messageOnly('A new verification code has been sent to the new email address.'),
      },
    },
    cacheControl: 'no-store',
  },
  {
    method: 'put',
    path: '/api/v1/portal/me/password',
    operationId: 'changePassword',
    tag: 'Profile',
    summary: "Change the signed-in user's password",
    description:
      "Unlisted fields are ignored. A wrong `current_password` is 422 on that field. Success revokes all of the user's tokens: log in again.",
    access: 'pat',
    limits: [
      { name: 'api', per: 'user' },
      { name: 'passwordChange', per: 'user' },
    ],
    body: { schema: inputJsonSchema(changePasswordInput, { password: NEW_PASSWORD }) },
    responses: {
      200: {
        description: 'Password changed; every token of the user revoked.',
        schema: ok(schema.ref('PasswordChanged'), {
          message: 'Password changed. Log in again with the new password.',
        }),
      },
    },
    cacheControl: 'no-store',
  },
  {
    method: 'get',
    path: '/portal/profile/email/verify/{verification}',
    operationId: 'verifyEmailLink',
    tag: 'Profile',
    summary: 'Signed email verification link (mailed)',
    description:
      'Outside `/api/v1`, no PAT: the link mailed for an email change, used as issued (never constructed). A valid link redirects to the Portal origin with `email_verification=verified`; a valid signature on a stale, consumed, ineligible or conflicting proof redirects with `email_verification=invalid`. A bad, tampered or expired signature is 403 `INVALID_SIGNATURE`; missing or invalid Portal configuration 503. GET only: HEAD (mail scanners) is 405 and does not use the link up.',
    access: 'signed_link',
    limits: [{ name: 'public', per: 'client IP' }],
    pathParameters: ['verification'],
    query: [
      { name: 'proof', in: 'query', required: true, schema: schema.string() },
      {
        name: 'expires',
        in: 'query',
        required: true,
        schema: schema.string({ pattern: '^[0-9]{1,12}$' }),
      },
      { name: 'signature', in: 'query', required: true, schema: schema.string() },
    ],
    parsesBody: false,
    responses: {
      302: {
        description: 'Redirect to the Portal; the URL carries no email, OTP, signature or token.',
        headers: {
          'Location': {
            description: 'The Portal origin with `email_verification=verified` or `invalid`.',
            schema: schema.string({ pattern: 'email_verification=(verified|invalid)' }),
            required: true,
          },
          'Cache-Control': {
            description: 'Never cached.',
            schema: { const: 'no-store' },
            required: true,
          },
          'Referrer-Policy': {
            description: 'No referrer.',
            schema: { const: 'no-referrer' },
            required: true,
          },
        },
      },
    },
    errors: { 404: ['NOT_FOUND'] },
  },
]
