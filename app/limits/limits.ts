/*
| Every limit of the contract's Limits table, declared once. Each is overridable by
| its own env variable (RATE_LIMIT_<NAME>_PER_MINUTE) and scaled by
| RATE_LIMIT_MULTIPLIER. Keys are built by the caller exactly as the table says.
| Enforcing them: enforce_limit.ts.
*/
import settings from '#config/settings'

export const LIMITS = {
  api: { perMinute: 60, env: 'RATE_LIMIT_API_PER_MINUTE' },
  public: { perMinute: 30, env: 'RATE_LIMIT_PUBLIC_PER_MINUTE' },
  login: { perMinute: 5, env: 'RATE_LIMIT_LOGIN_PER_MINUTE' },
  profileUpdate: { perMinute: 3, env: 'RATE_LIMIT_PROFILE_UPDATE_PER_MINUTE' },
  emailResend: { perMinute: 3, env: 'RATE_LIMIT_EMAIL_RESEND_PER_MINUTE' },
  otpVerify: { perMinute: 10, env: 'RATE_LIMIT_OTP_VERIFY_PER_MINUTE' },
  passwordChange: { perMinute: 6, env: 'RATE_LIMIT_PASSWORD_CHANGE_PER_MINUTE' },
  machineClientMutation: { perMinute: 5, env: 'RATE_LIMIT_MACHINE_CLIENT_PER_MINUTE' },
  credentialConsume: { perMinute: 10, env: 'RATE_LIMIT_CREDENTIAL_CONSUME_PER_MINUTE' },
  integrationKeyMutation: { perMinute: 5, env: 'RATE_LIMIT_INTEGRATION_KEY_PER_MINUTE' },
  teamMutation: { perMinute: 5, env: 'RATE_LIMIT_TEAM_MUTATION_PER_MINUTE' },
  invitationMutation: { perMinute: 5, env: 'RATE_LIMIT_INVITATION_PER_MINUTE' },
  invitationAcceptance: { perMinute: 5, env: 'RATE_LIMIT_INVITATION_ACCEPTANCE_PER_MINUTE' },
  invitationAcceptanceIp: { perMinute: 5, env: 'RATE_LIMIT_INVITATION_ACCEPTANCE_IP_PER_MINUTE' },
  oauthToken: { perMinute: 30, env: 'RATE_LIMIT_OAUTH_TOKEN_PER_MINUTE' },
} as const

export type LimitName = keyof typeof LIMITS

function positiveNumber(raw: unknown): number | undefined {
  const parsed = Number(raw)
  return raw !== undefined && raw !== '' && Number.isFinite(parsed) && parsed > 0
    ? parsed
    : undefined
}

/** Requests per minute in force for a limit: env override, times the multiplier, at least 1. */
export function requestsPerMinute(name: LimitName): number {
  const limit = LIMITS[name]
  const base = positiveNumber(settings.limitOverride(limit.env)) ?? limit.perMinute
  const multiplier = positiveNumber(settings.rateLimitMultiplier()) ?? 1
  return Math.max(1, Math.floor(base * multiplier))
}
