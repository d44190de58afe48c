/*
| Shared pieces of the document: the component schemas (the response shapes of
| app/shapes/, referred to by name), the success envelope, path parameters (from the
| route id shapes start/routes.ts matches with) and the security schemes of
| portal-api.md › Authentication. The envelope's list meta and field errors are
| response shapes (app/shapes/envelope.ts).
*/
import { INTEGRATION_KEY_TYPES, routeIds } from '#validators/rules/route_ids'
import { DEFAULT_PER_PAGE, MAX_PAGE, MAX_PER_PAGE } from '#validators/rules/pagination'
import { NEW_PASSWORD_CHARACTERS, NEW_PASSWORD_LENGTH } from '#validators/rules/password_policy'
import { schema, type JsonSchema, type Schema, type Static } from '#openapi/json_schema'
import { envelopeSchemas } from '#shapes/envelope'
import { profileSchemas } from '#shapes/profile'
import { machineClientSchemas } from '#shapes/machine_client'
import { teamSchemas } from '#shapes/team'
import { merchantSchemas } from '#shapes/merchant'
import { collectionsSchemas } from '#shapes/collections'
import { reportingSchemas } from '#shapes/reporting'

/** The document's `components.schemas`, in its order. */
export const componentSchemas = {
  ...envelopeSchemas,
  ...profileSchemas,
  ...machineClientSchemas,
  ...teamSchemas,
  ...merchantSchemas,
  ...collectionsSchemas,
  ...reportingSchemas,
}

export type ComponentName = keyof typeof componentSchemas

/**
 * `$ref` to a registered component by its name: a name that is not registered does
 * not compile, and the result has the component's type. (Inside app/shapes, where the
 * registry is still being declared, `schema.ref({ Name })`.)
 */
export function ref<Name extends ComponentName>(
  name: Name
): Schema<Static<(typeof componentSchemas)[Name]>> {
  return { $ref: `#/components/schemas/${name}` }
}

/** `{success: true, message, data}`; lists add `meta`. */
export function ok(
  data: JsonSchema,
  options: { message?: string; meta?: JsonSchema } = {}
): JsonSchema {
  return schema.object({
    success: schema.const(true),
    message: schema.string(options.message ? { examples: [options.message] } : {}),
    data,
    ...(options.meta ? { meta: options.meta } : {}),
  })
}

/** A page of `item` with the standard `meta`. */
export function page(item: JsonSchema, meta: JsonSchema = ref('PageMeta')) {
  return ok(schema.array(item), { meta })
}

/** The new-password field; its bounds and pattern come from app/validators/rules/password_policy.ts. */
export const NEW_PASSWORD: JsonSchema = {
  description: `${NEW_PASSWORD_LENGTH.min}-${NEW_PASSWORD_LENGTH.max} characters with ${NEW_PASSWORD_CHARACTERS}; \`password_confirmation\` must be identical (not trimmed).`,
}

export const PAGINATION_DESCRIPTIONS = {
  page: `Page number, a canonical integer (digits only, no leading zero) from 1 to ${MAX_PAGE} (2^53 - 1; default 1). Empty or null is invalid; a page past the end is 200 with empty \`data\`.`,
  per_page: `Items per page, 1-${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE}). Empty or null is invalid.`,
}

export const messageOnly = (message?: string) => ok({ type: 'null' }, { message })

const pattern = (regex: RegExp) => regex.source

export const parameters = {
  client: pathParameter('client', 'Machine-client ownership id.', {
    type: 'string',
    pattern: pattern(routeIds.numeric.match),
  }),
  member: pathParameter('member', 'User id of the member.', {
    type: 'string',
    pattern: pattern(routeIds.numeric.match),
  }),
  transaction: pathParameter('transaction', 'Internal transaction id.', {
    type: 'string',
    pattern: pattern(routeIds.numeric.match),
  }),
  delivery: pathParameter('delivery', 'Credential delivery id (UUID).', {
    type: 'string',
    format: 'uuid',
    pattern: pattern(routeIds.uuid.match),
  }),
  invitation: pathParameter('invitation', 'Invitation id (UUID).', {
    type: 'string',
    format: 'uuid',
    pattern: pattern(routeIds.uuid.match),
  }),
  verification: pathParameter('verification', 'Pending email change id, as mailed.', {
    type: 'string',
    format: 'uuid',
    pattern: pattern(routeIds.uuid.match),
  }),
  history: pathParameter('history', 'History item id: a 26-character uppercase ULID.', {
    type: 'string',
    pattern: pattern(routeIds.ulid.match),
  }),
  keyType: pathParameter(
    'keyType',
    `Exactly ${INTEGRATION_KEY_TYPES.map((type) => `\`${type}\``).join(' or ')} (case-sensitive).`,
    {
      type: 'string',
      enum: [...INTEGRATION_KEY_TYPES],
    }
  ),
  asset: pathParameter('asset', 'A file of the bundled reference UI.', {
    type: 'string',
    pattern: '^[a-z0-9-]+\\.(js|css|png)$',
  }),
  merchant: pathParameter('merchant', 'Merchant id, as in the logo URL the API returns.', {
    type: 'string',
    pattern: pattern(routeIds.numeric.match),
  }),
  file: pathParameter(
    'file',
    'Stored logo name: a 26-character lowercase ULID and the extension of its type.',
    { type: 'string', pattern: '^[0-9a-z]{26}\\.(png|jpg|webp)$' }
  ),
}

function pathParameter(name: string, description: string, paramSchema: JsonSchema) {
  return {
    name,
    in: 'path',
    required: true,
    description: `${description} A malformed, unknown, foreign or inaccessible id answers 404 \`NOT_FOUND\`.`,
    schema: paramSchema,
  }
}

export const securitySchemes = {
  portalApplication: {
    type: 'http',
    scheme: 'basic',
    description:
      'The Portal application: `Authorization: Basic base64(client_id:client_secret)`, together with the `X-Service-Application: merchant_portal` header.',
  },
  serviceApplication: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Service-Application',
    description: 'Always `merchant_portal`; sent with the Portal application credentials.',
  },
  portalPat: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A Portal user PAT from `POST /api/v1/auth/login` (60 minutes by default, no refresh). On 401 clear the session and log in again.',
  },
  oauthClientBasic: {
    type: 'http',
    scheme: 'basic',
    description:
      'Machine client credentials as HTTP Basic on `/oauth/token` (alternatively `client_id` and `client_secret` in the form body; never both).',
  },
  machineClient: {
    type: 'oauth2',
    description:
      'Machine access tokens for merchant integration servers (client credentials grant); sent as `Authorization: Bearer <machine_access_token>`. Never valid on Portal user endpoints.',
    flows: {
      clientCredentials: {
        tokenUrl: '/oauth/token',
        scopes: { 'merchant-api': 'Merchant integration API.' },
      },
    },
  },
}
