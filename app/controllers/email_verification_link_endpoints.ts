/* portal-api.md › Profile: the signed email verification link (outside /api/v1), the endpoint of EmailVerificationLinkController. */
import { schema } from '#openapi/json_schema'
import { endpointsOf } from '#http/endpoint'
import { signedLinkStack } from '#http/stacks'
import { routeIds } from '#validators/rules/route_ids'
import { AuditActions } from '#services/audit/actions'

export const emailVerificationLinkEndpoints = endpointsOf({
  verify: {
    method: 'get',
    path: '/portal/profile/email/verify/:verification',
    name: 'profile.email.verify_link',
    stack: signedLinkStack(AuditActions.emailVerifyLink),
    where: { verification: routeIds.uuid },
    // `router.get` would also answer HEAD, and a mail scanner's HEAD must not use the
    // link up (HEAD → 405).
    head: false,
    operationId: 'verifyEmailLink',
    tag: 'Profile',
    summary: 'Signed email verification link (mailed)',
    description:
      'Outside `/api/v1`, no PAT: the link mailed for an email change, used as issued (never constructed). A valid link redirects to the Portal origin with `email_verification=verified`; a valid signature on a stale, consumed, ineligible or conflicting proof redirects with `email_verification=invalid`. A bad, tampered or expired signature is 403 `INVALID_SIGNATURE`; missing or invalid Portal configuration 503. GET only: HEAD (mail scanners) is 405 and does not use the link up.',
    queryParameters: [
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
          Location: {
            description: 'The Portal origin with `email_verification=verified` or `invalid`.',
            schema: schema.string({ pattern: 'email_verification=(verified|invalid)' }),
            required: true,
          },
        },
      },
    },
    errors: ['NOT_FOUND'],
  },
})
