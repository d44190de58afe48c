/* portal-api.md › Login and session (POST /auth/*). */
import { loginInput } from '#validators/session'
import { newPasswordInput, resetLinkInput } from '#validators/password'
import { inputJsonSchema, schema } from '#openapi/json_schema'
import { messageOnly, ok, NEW_PASSWORD } from '#openapi/components'
import type { OperationSpec } from '#openapi/operation'

export const authOperations: OperationSpec[] = [
  {
    method: 'post',
    path: '/api/v1/auth/login',
    operationId: 'login',
    tag: 'Auth',
    summary: 'Log a Portal user in and issue a PAT',
    description:
      'Validates the application, the user (`username` is matched against username or email) and the merchant, then issues a PAT. Requires an active merchant and an active administrator or developer. No refresh token is issued. Unlisted body fields are ignored.',
    access: 'app',
    limits: [
      { name: 'api', per: 'client IP' },
      { name: 'login', per: 'application, submitted identity and IP' },
    ],
    body: { schema: inputJsonSchema(loginInput) },
    responses: {
      200: {
        description: 'Signed in.',
        schema: ok(schema.ref('LoginResult'), { message: 'Login successful.' }),
      },
    },
    errors: { 401: ['INVALID_CREDENTIALS'], 403: ['MERCHANT_USER_NOT_AUTHORIZED'] },
    cacheControl: 'no-store',
  },
  {
    method: 'post',
    path: '/api/v1/auth/logout',
    operationId: 'logout',
    tag: 'Auth',
    summary: 'Revoke the current PAT',
    description:
      'Revokes only the PAT of the request. No body: a payload is ignored, whatever its type or shape (a merchant selector naming another merchant in a readable JSON body is still 403).',
    access: 'pat',
    limits: [{ name: 'api', per: 'user' }],
    // The payload is never refused: no 413 or 415; a malformed merchant selector is 422.
    parsesBody: false,
    errors: { 422: ['VALIDATION_ERROR'] },
    responses: { 200: { description: 'Logged out.', schema: messageOnly('Logged out.') } },
    cacheControl: 'no-store',
  },
  {
    method: 'post',
    path: '/api/v1/auth/reset-password/reset-link',
    operationId: 'sendPasswordResetLink',
    tag: 'Auth',
    summary: 'Email a password reset link',
    description:
      'Answers the same generic message whether or not an account exists. `reset_url` must be a page of the configured Portal origin (scheme, host and effective port equal; no userinfo, query or fragment); the service appends the token and email as query values. Reset tokens are valid 60 minutes. Unlisted fields are ignored. 503 when the Portal origin is not configured.',
    access: 'public',
    limits: [{ name: 'public', per: 'client IP' }],
    body: {
      schema: inputJsonSchema(resetLinkInput, { reset_url: { format: 'uri' } }),
    },
    responses: {
      200: {
        description: 'Accepted (independent of account existence).',
        schema: messageOnly(
          'If an account exists for this email address, a password reset link has been sent to it.'
        ),
      },
    },
    cacheControl: 'no-store',
  },
  {
    method: 'post',
    path: '/api/v1/auth/reset-password/new-password',
    operationId: 'resetPassword',
    tag: 'Auth',
    summary: 'Set a new password with a reset proof',
    description:
      "Success revokes all of the user's tokens. An invalid, expired or consumed proof is 400 `RESET_TOKEN_INVALID` (not 410). Unlisted fields are ignored.",
    access: 'public',
    limits: [{ name: 'public', per: 'client IP' }],
    body: { schema: inputJsonSchema(newPasswordInput, { password: NEW_PASSWORD }) },
    responses: {
      200: {
        description: 'Password replaced.',
        schema: messageOnly('Your password has been reset. Log in with your new password.'),
      },
    },
    errors: { 400: ['RESET_TOKEN_INVALID'] },
    cacheControl: 'no-store',
  },
]
