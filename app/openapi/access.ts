/*
| What each kind of caller (`Access`) means in the document: its security requirement,
| its sentence in the operation's description, the authentication errors it implies
| and the challenge of its 401.
*/
import type { ErrorCode } from '#exceptions/error_codes'
import type { Access } from '#openapi/operation_spec'

/** The WWW-Authenticate challenge of each kind of caller's 401 (app/auth/bearer.ts). */
export const CHALLENGES: Partial<Record<Access, string>> = {
  app: '`Basic realm="portal", charset="UTF-8"`',
  pat: '`Bearer realm="portal"`, with `error="invalid_token"` when a token was sent',
  admin: '`Bearer realm="portal"`, with `error="invalid_token"` when a token was sent',
  machine: '`Bearer realm="merchant-api"`, with `error="invalid_token"` when a token was sent',
}

export const AUTH_ERRORS: Record<Access, ErrorCode[]> = {
  public: ['RATE_LIMITED'],
  app: ['ECOSYSTEM_CLIENT_UNAUTHENTICATED', 'RATE_LIMITED'],
  pat: [
    'UNAUTHENTICATED',
    'ACCESS_TOKEN_INVALID',
    'MERCHANT_USER_NOT_AUTHORIZED',
    'ECOSYSTEM_APPLICATION_NOT_AUTHORIZED',
    'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
    'MERCHANT_SCOPE_MISMATCH',
    'RATE_LIMITED',
  ],
  admin: [
    'UNAUTHENTICATED',
    'ACCESS_TOKEN_INVALID',
    'MERCHANT_USER_NOT_AUTHORIZED',
    'ECOSYSTEM_APPLICATION_NOT_AUTHORIZED',
    'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
    'FORBIDDEN',
    'MERCHANT_SCOPE_MISMATCH',
    'RATE_LIMITED',
  ],
  machine: [
    'UNAUTHENTICATED',
    'ACCESS_TOKEN_INVALID',
    'CLIENT_MERCHANT_NOT_AUTHORIZED',
    'INSUFFICIENT_SCOPE',
    'RATE_LIMITED',
    'MERCHANT_MACHINE_API_UNAVAILABLE',
  ],
  signed_link: ['INVALID_SIGNATURE', 'RATE_LIMITED'],
  oauth_client: [],
  none: [],
}

export const SECURITY: Record<Access, object[] | undefined> = {
  public: [],
  app: [{ portalApplication: [], serviceApplication: [] }],
  pat: [{ portalPat: [] }],
  admin: [{ portalPat: [] }],
  machine: [{ machineClient: ['merchant-api'] }],
  signed_link: [],
  oauth_client: [{ oauthClientBasic: [] }, {}],
  none: [],
}

export const ACCESS_TEXT: Record<Access, string> = {
  public: 'Public (no credentials).',
  app: "Portal application: HTTP Basic `client_id:client_secret` plus `X-Service-Application: merchant_portal`; an `Origin`, when sent, must be one of the application's origins.",
  pat: 'Portal user PAT (`Authorization: Bearer <user_pat>`), administrator or developer.',
  admin:
    'Portal user PAT of an **administrator** (`Authorization: Bearer <user_pat>`); a developer gets 403 `FORBIDDEN` before any validation.',
  machine:
    'Machine access token from `/oauth/token` (`Authorization: Bearer <machine_access_token>`).',
  signed_link: 'The signed link mailed for an email change (no PAT).',
  oauth_client: 'Machine client credentials, in the form body or as HTTP Basic (not both).',
  none: 'None.',
}
