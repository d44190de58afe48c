/*
| Route ID shapes (portal-api.md, Endpoints › Path IDs), defined once. A parameter
| that does not match makes the route not match: 404 NOT_FOUND from the handler.
*/
import ApiError from '#exceptions/api_error'

const POSTGRES_BIGINT_MAX = 9223372036854775807n

/** The two integration key types of `{keyType}` (any other spelling does not match: 404). */
export const INTEGRATION_KEY_TYPES = ['authentication_token', 'secret_key'] as const
export type IntegrationKeyType = (typeof INTEGRATION_KEY_TYPES)[number]

export const routeIds = {
  /** Canonical positive decimal, at most 20 digits, within PostgreSQL's bigint. */
  numeric: {
    match: /^[1-9][0-9]{0,19}$/,
    cast: (value: string) => {
      if (BigInt(value) > POSTGRES_BIGINT_MAX) throw ApiError.notFound()
      return value
    },
  },
  uuid: { match: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/ },
  /** History ids: 26-character uppercase Crockford ULID. */
  ulid: { match: /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/ },
  keyType: { match: new RegExp(`^(?:${INTEGRATION_KEY_TYPES.join('|')})$`) },
}
