/* portal-api.md › Login and session: password recovery, the endpoints of PasswordResetController. */
import { newPasswordInput, resetLinkInput } from '#validators/password'
import { NEW_PASSWORD } from '#openapi/components'
import { endpointsOf } from '#http/endpoint'
import { publicStack } from '#http/stacks'
import { AuditActions } from '#services/audit/actions'

export const passwordResetEndpoints = endpointsOf({
  sendLink: {
    method: 'post',
    path: '/api/v1/auth/reset-password/reset-link',
    name: 'auth.reset_link',
    stack: publicStack(AuditActions.passwordResetLink),
    operationId: 'sendPasswordResetLink',
    tag: 'Auth',
    summary: 'Email a password reset link',
    description:
      'Answers the same generic message whether or not an account exists. `reset_url` must be a page of the configured Portal origin (scheme, host and effective port equal; no userinfo, query or fragment); the service appends the token and email as query values. Reset tokens are valid 60 minutes. Unlisted fields are ignored. 503 when the Portal origin is not configured, and 503 `SERVICE_UNAVAILABLE` with `Retry-After` (seconds) when too many reset requests already wait to be processed, whatever the address.',
    body: { input: resetLinkInput, overrides: { reset_url: { format: 'uri' } } },
    response: {
      description: 'Accepted (independent of account existence).',
      message:
        'If an account exists for this email address, a password reset link has been sent to it.',
    },
  },
  reset: {
    method: 'post',
    path: '/api/v1/auth/reset-password/new-password',
    name: 'auth.new_password',
    dropsWorkWhenClientLeaves: true,
    stack: publicStack(AuditActions.passwordReset),
    operationId: 'resetPassword',
    tag: 'Auth',
    summary: 'Set a new password with a reset proof',
    description:
      "Success revokes all of the user's tokens. An invalid, expired or consumed proof is 400 `RESET_TOKEN_INVALID` (not 410). Unlisted fields are ignored.",
    body: { input: newPasswordInput, overrides: { password: NEW_PASSWORD } },
    response: {
      description: 'Password replaced.',
      message: 'Your password has been reset. Log in with your new password.',
    },
    errors: ['RESET_TOKEN_INVALID'],
  },
})
