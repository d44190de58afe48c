/*
| portal-api.md › Merchant and logo, Integration keys. Request bodies come from the
| validators the controllers use (app/validators/merchant.ts); the overrides state
| the bounds of the custom rules, which emit no JSON Schema of their own (lengths in
| characters, the HTTPS website rule, the 10-500 `reason`). docs/merchant.md has the
| choices the contract leaves open.
*/
import {
  INTEGRATION_KEY_MAX_LENGTH,
  integrationKeyDeleteInput,
  integrationKeyPutInput,
  merchantUpdateInput,
  WEBSITE_MAX_LENGTH,
} from '#validators/merchant'
import { NO_BODY } from '#validators/rules/input'
import { inputJsonSchema, schema, type FieldOverrides } from '#openapi/json_schema'
import { ok } from '#openapi/components'
import type { OperationSpec } from '#openapi/operation'

const { ref } = schema

// Character bounds come with the `lengthBetween` rule (#validators/rules/text_length).
const MERCHANT_UPDATE_OVERRIDES: FieldOverrides = {
  website: {
    type: ['string', 'null'],
    maxLength: WEBSITE_MAX_LENGTH,
    pattern: '^(?:[Hh][Tt][Tt][Pp][Ss]://[^\\s\\p{Cc}]+)?$',
    description:
      'An absolute `https://` URL with a host and no user info, null, or an empty string (stored as null).',
  },
}

const keyLimit = (operation: string) => [
  { name: 'api' as const, per: 'user' },
  {
    name: 'integrationKeyMutation' as const,
    per: `actor, merchant, operation (\`${operation}\`) and key type; refusals audited`,
  },
]

const KEY_CACHE = 'no-store, private'
const PASSWORD_RULE =
  'A wrong `current_password` is 422 on that field and changes nothing (the refusal is audited). The change and its audit record are written atomically.'

export const merchantOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/v1/portal/merchant',
    operationId: 'getMerchant',
    tag: 'Merchant',
    summary: 'Read the merchant profile',
    description: 'The merchant of the signed-in user.',
    access: 'pat',
    limits: [{ name: 'api', per: 'user' }],
    responses: {
      200: { description: 'The merchant.', schema: ok(ref('Merchant'), { message: 'Success' }) },
    },
    cacheControl: 'no-store',
  },
  {
    method: 'patch',
    path: '/api/v1/portal/merchant',
    operationId: 'updateMerchant',
    tag: 'Merchant',
    summary: 'Update the merchant profile',
    description:
      'Strict body: at least one of the listed fields; omitted fields are unchanged. Supplied fields other than `website` cannot be null or empty; `website` is null or an HTTPS URL (an empty string becomes null). Strings are trimmed; `email` is also lowercased. Single-line fields refuse control characters; `address` may hold line breaks. Read-only fields (id, reference_id, currency, is_active, is_production, services, timestamps, fees, settlement or provider settings, credentials) are rejected with 422.',
    access: 'admin',
    limits: [{ name: 'api', per: 'user' }],
    body: {
      schema: {
        ...inputJsonSchema(merchantUpdateInput, MERCHANT_UPDATE_OVERRIDES),
        minProperties: 1,
      },
    },
    responses: {
      200: {
        description: 'The updated merchant.',
        schema: ok(ref('Merchant'), { message: 'Merchant profile updated.' }),
      },
    },
    cacheControl: 'no-store',
  },
  {
    method: 'get',
    path: '/api/v1/portal/merchant/logo',
    operationId: 'getMerchantLogo',
    tag: 'Merchant',
    summary: 'Read the logo URL',
    description:
      '`data.url` is null when there is no logo or the stored file is missing or unusable.',
    access: 'pat',
    limits: [{ name: 'api', per: 'user' }],
    responses: {
      200: {
        description: 'The logo URL.',
        schema: ok(ref('MerchantLogo'), { message: 'Success' }),
      },
    },
    cacheControl: 'no-store',
  },
  {
    method: 'post',
    path: '/api/v1/portal/merchant/logo',
    operationId: 'uploadMerchantLogo',
    tag: 'Merchant',
    summary: 'Upload the logo',
    description:
      'Multipart (`multipart/form-data`) with exactly one part, the file `file`: a real PNG, JPEG or WebP image (recognised by its content, not its name or part type), at most 2,048 KB and 16,777,216 decoded pixels (4096 × 4096). Other types, invalid, truncated or polyglot content, a missing file, a second file, extra fields, a query string, malformed multipart or oversize (cut off while streaming): 422 `VALIDATION_ERROR`, never 413. Another request content type: 415. The image is re-encoded without metadata and stored under a per-merchant location with a server-generated name; the client filename never chooses storage. The previous logo is removed. The stored copy is at most 2,048 KB: when the usual re-encoding is larger, a smaller one is used (lower quality for JPEG and WebP; PNG stays lossless), and an image that fits neither is 422. Images are processed a few at a time per server: when too many uploads already wait, or this merchant already has two in progress, the answer is 503 `SERVICE_UNAVAILABLE` at once with `Retry-After` (seconds); nothing was stored and the upload can be sent again.',
    access: 'admin',
    limits: [{ name: 'api', per: 'user' }],
    // Read by the controller (config/bodyparser.ts processManually): no 413.
    parsesBody: false,
    body: {
      mediaType: 'multipart/form-data',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['file'],
        properties: {
          file: {
            type: 'string',
            contentMediaType: 'application/octet-stream',
            description: 'The image: PNG, JPEG or WebP, at most 2,048 KB (2,097,152 bytes).',
          },
        },
      },
      encoding: { file: { contentType: 'image/png, image/jpeg, image/webp' } },
    },
    responses: {
      200: {
        description: 'Stored; the new URL.',
        schema: ok(ref('MerchantLogo'), { message: 'Logo updated.' }),
      },
    },
    errors: { 415: ['UNSUPPORTED_MEDIA_TYPE'] },
    cacheControl: 'no-store',
  },
  {
    method: 'delete',
    path: '/api/v1/portal/merchant/logo',
    operationId: 'deleteMerchantLogo',
    tag: 'Merchant',
    summary: 'Remove the logo',
    description:
      'No body or query (supplied fields are rejected with 422). Idempotent when no logo exists.',
    access: 'admin',
    limits: [{ name: 'api', per: 'user' }],
    body: { schema: inputJsonSchema(NO_BODY), required: false },
    responses: { 204: { description: 'Removed (empty body).' } },
    cacheControl: 'no-store',
  },
  {
    method: 'get',
    path: '/api/v1/portal/merchant/integration-keys',
    operationId: 'getIntegrationKeys',
    tag: 'Integration keys',
    summary: 'Read integration key presence',
    description:
      'Presence only; values are never readable. Without an integration record both flags are false and `updated_at` is null (no record is created). Every response of the integration key routes, errors included, is `Cache-Control: no-store, private`.',
    access: 'pat',
    limits: [{ name: 'api', per: 'user' }],
    responses: {
      200: {
        description: 'Presence metadata.',
        schema: ok(ref('IntegrationKeysPresence'), { message: 'Success' }),
      },
    },
    cacheControl: KEY_CACHE,
  },
  {
    method: 'put',
    path: '/api/v1/portal/merchant/integration-keys/{keyType}',
    operationId: 'putIntegrationKey',
    tag: 'Integration keys',
    summary: 'Set an integration key',
    description: `Strict body. \`value\` is kept exactly as sent (never trimmed), nonempty and not whitespace-only, at most ${INTEGRATION_KEY_MAX_LENGTH.toLocaleString('en-US')} characters; it never appears in a response, log or audit record. \`secret_key\` signs payment notifications (queued notifications may still use an earlier key); \`authentication_token\` maps to a legacy asset and is not an API bearer token. OAuth clients and PATs stay active. ${PASSWORD_RULE} An unsupported key type is 404.`,
    access: 'admin',
    limits: keyLimit('put'),
    pathParameters: ['keyType'],
    body: {
      schema: inputJsonSchema(integrationKeyPutInput),
    },
    responses: {
      200: {
        description: 'Presence metadata after the change.',
        schema: ok(ref('IntegrationKeysPresence'), { message: 'Integration key updated.' }),
      },
    },
    cacheControl: KEY_CACHE,
  },
  {
    method: 'delete',
    path: '/api/v1/portal/merchant/integration-keys/{keyType}',
    operationId: 'deleteIntegrationKey',
    tag: 'Integration keys',
    summary: 'Remove an integration key',
    description: `Strict JSON body (\`value\` is not accepted). Idempotent even if the key or the integration is absent (nothing is created); the other key, logo, webhook URLs and x_token are preserved. Removal without a fallback can interrupt future notifications. ${PASSWORD_RULE} An unsupported key type is 404.`,
    access: 'admin',
    limits: keyLimit('delete'),
    pathParameters: ['keyType'],
    body: { schema: inputJsonSchema(integrationKeyDeleteInput) },
    responses: { 204: { description: 'Removed (empty body).' } },
    cacheControl: KEY_CACHE,
  },
]
