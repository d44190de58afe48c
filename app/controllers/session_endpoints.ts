/* portal-api.md › Login and session: login and logout, the endpoints of SessionController. */
import { loginInput } from '#validators/session'
import { ref } from '#openapi/components'
import { endpointsOf } from '#http/endpoint'
import { appClientStack, portalStack } from '#http/stacks'
import { LoginResultTransformer } from '#transformers/login_user_transformer'

export const sessionEndpoints = endpointsOf({
  login: {
    method: 'post',
    path: '/api/v1/auth/login',
    name: 'auth.login',
    dropsWorkWhenClientLeaves: true,
    stack: appClientStack({
      afterBody: [
        {
          name: 'login',
          key: ['application', 'body:username', 'ip'],
          per: 'application, submitted identity and IP',
        },
      ],
    }),
    operationId: 'login',
    tag: 'Auth',
    summary: 'Log a Portal user in and issue a PAT',
    description:
      'Validates the application, the user (`username` is matched against username or email) and the merchant, then issues a PAT. Requires an active merchant and an active administrator or developer. No refresh token is issued. Unlisted body fields are ignored. Password checks wait their turn per submitted identity: when too many already wait (in all, or for this identity), or this one would wait longer than the service allows, the answer is 503 `SERVICE_UNAVAILABLE` at once with `Retry-After` (seconds), and the password was not checked.',
    body: { input: loginInput },
    response: {
      description: 'Signed in.',
      data: ref('LoginResult'),
      transformer: LoginResultTransformer,
      message: 'Login successful.',
    },
    errors: ['INVALID_CREDENTIALS', 'MERCHANT_USER_NOT_AUTHORIZED'],
  },
  logout: {
    method: 'post',
    path: '/api/v1/auth/logout',
    name: 'auth.logout',
    stack: portalStack({ body: { ignoreInvalid: true } }),
    operationId: 'logout',
    tag: 'Auth',
    summary: 'Revoke the current PAT',
    description:
      'Revokes only the PAT of the request. No body: a payload is ignored, whatever its type or shape (a merchant selector naming another merchant in a readable JSON body is still 403).',
    // The payload is never refused: no 413 or 415; a malformed merchant selector is 422.
    parsesBody: false,
    errors: ['VALIDATION_ERROR'],
    response: { description: 'Logged out.', message: 'Logged out.' },
  },
})
