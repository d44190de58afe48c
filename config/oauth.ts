/*
| Machine token endpoint (portal-api.md › Machine token endpoint): the registered
| scopes a client may request, and the scopes granted when `scope` is omitted.
| Lifetime (MACHINE_TOKEN_TTL_SECONDS) and the kill switch (MACHINE_API_ENABLED) are
| read from the environment at request time (app/auth/machine_access_tokens.ts).
*/
import { appUrl } from '#config/app'

/** `merchant-api`: the merchant integration API (GET /api/v1/merchant-api/whoami today). */
export const MERCHANT_API_SCOPE = 'merchant-api'

const oauthConfig = {
  /** Every scope a machine client may request; anything else is `invalid_scope`. */
  scopes: [MERCHANT_API_SCOPE] as readonly string[],
  /** Granted when the request omits `scope` (an empty `scope` requests none). */
  defaultScopes: [MERCHANT_API_SCOPE] as readonly string[],
  /** token_url of credential deliveries. */
  tokenUrl: `${appUrl}/oauth/token`,
}

export default oauthConfig
