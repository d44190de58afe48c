/*
| portal-api.md › Merchant and logo, Integration keys.
|
| Described from the contract before the routes land (`pending: true`). The inputs
| below are provisional VineJS schemas written from the contract; when the merchant
| routes merge, import the real validators from #validators/* instead of these,
| delete `pending`, and regenerate (docs/openapi.md).
*/
import vine from '@vinejs/vine'
import { defineInput, NO_BODY } from '#validators/rules/input'
import { currentPassword } from '#validators/rules/password_policy'
import { inputJsonSchema, schema } from '#openapi/json_schema'
import { ok } from '#openapi/components'
import type { OperationSpec } from '#openapi/operation'

const { ref } = schema
const reason = () => vine.string().minLength(10).maxLength(500)

/** PATCH /portal/merchant (strict): at least one field; only `website` may be null. */
const updateMerchantInput = defineInput(
  {
    name: vine.string().minLength(1).maxLength(150).optional(),
    contact_person: vine.string().minLength(1).maxLength(100).optional(),
    email: vine.string().maxLength(255).email().optional(),
    dial_code: vine.string().minLength(1).maxLength(8).optional(),
    phone: vine.string().minLength(1).maxLength(30).optional(),
    address: vine.string().minLength(1).maxLength(500).optional(),
    website: vine.string().maxLength(2048).optional(),
  },
  { strict: true }
)

/** PUT /portal/merchant/integration-keys/{keyType} (strict). */
const putIntegrationKeyInput = defineInput(
  {
    value: vine.string().minLength(1).maxLength(4096),
    current_password: currentPassword(),
    reason: reason(),
  },
  { strict: true }
)

/** DELETE /portal/merchant/integration-keys/{keyType} (strict; `value` not accepted). */
const deleteIntegrationKeyInput = defineInput(
  { current_password: currentPassword(), reason: reason() },
  { strict: true }
)

const keyLimit = (operation: string) => [
  { name: 'api' as const, per: 'user' },
  {
    name: 'integrationKeyMutation' as const,
    per: `actor, merchant, operation (\`${operation}\`) and key type; refusals audited`,
  },
]

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
    pending: true,
  },
  {
    method: 'patch',
    path: '/api/v1/portal/merchant',
    operationId: 'updateMerchant',
    tag: 'Merchant',
    summary: 'Update the merchant profile',
    description:
      'Strict body: at least one of the listed fields; omitted fields are unchanged. Supplied fields other than `website` cannot be null or empty; `website` is null or an HTTPS URL (an empty string becomes null). Read-only fields (id, reference_id, currency, is_active, is_production, services, timestamps, fees, settlement or provider settings, credentials) are rejected with 422.',
    access: 'admin',
    limits: [{ name: 'api', per: 'user' }],
    body: {
      schema: {
        ...inputJsonSchema(updateMerchantInput, {
          email: { format: 'email' },
          website: {
            type: ['string', 'null'],
            maxLength: 2048,
            pattern: '^(https://.+)?$',
            description: 'HTTPS URL, null, or an empty string (stored as null).',
          },
        }),
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
    pending: true,
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
    responses: { 200: { description: 'The logo URL.', schema: ok(ref('MerchantLogo')) } },
    cacheControl: 'no-store',
    pending: true,
  },
  {
    method: 'post',
    path: '/api/v1/portal/merchant/logo',
    operationId: 'uploadMerchantLogo',
    tag: 'Merchant',
    summary: 'Upload the logo',
    description:
      'Multipart field `file`: a real PNG, JPEG or WebP image, at most 2,048 KB. Other types, invalid content, extra fields or oversize: 422 `VALIDATION_ERROR`. Stored under a per-merchant location with a server-generated name; the client filename never chooses storage.',
    access: 'admin',
    limits: [{ name: 'api', per: 'user' }],
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
            description: 'PNG, JPEG or WebP, max 2,048 KB.',
          },
        },
      },
    },
    responses: { 200: { description: 'Stored.', schema: ok(ref('MerchantLogo')) } },
    cacheControl: 'no-store',
    pending: true,
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
    pending: true,
  },
  {
    method: 'get',
    path: '/api/v1/portal/merchant/integration-keys',
    operationId: 'getIntegrationKeys',
    tag: 'Integration keys',
    summary: 'Read integration key presence',
    description:
      'Presence only; values are never readable. Without an integration record both flags are false and `updated_at` is null (no record is created).',
    access: 'pat',
    limits: [{ name: 'api', per: 'user' }],
    responses: {
      200: { description: 'Presence metadata.', schema: ok(ref('IntegrationKeysPresence')) },
    },
    cacheControl: 'no-store, private',
    pending: true,
  },
  {
    method: 'put',
    path: '/api/v1/portal/merchant/integration-keys/{keyType}',
    operationId: 'putIntegrationKey',
    tag: 'Integration keys',
    summary: 'Set an integration key',
    description:
      'Strict body. `value` is kept byte for byte (not trimmed), nonempty and not whitespace-only. `secret_key` signs payment notifications (queued notifications may still use an earlier key); `authentication_token` maps to a legacy asset and is not an API bearer token. OAuth clients and PATs stay active. A wrong `current_password` is 422 on that field. An unsupported key type is 404.',
    access: 'admin',
    limits: keyLimit('put'),
    pathParameters: ['keyType'],
    body: {
      schema: inputJsonSchema(putIntegrationKeyInput, { value: { pattern: '\\S' } }),
    },
    responses: {
      200: {
        description: 'Presence metadata after the change.',
        schema: ok(ref('IntegrationKeysPresence'), { message: 'Integration key updated.' }),
      },
    },
    cacheControl: 'no-store, private',
    pending: true,
  },
  {
    method: 'delete',
    path: '/api/v1/portal/merchant/integration-keys/{keyType}',
    operationId: 'deleteIntegrationKey',
    tag: 'Integration keys',
    summary: 'Remove an integration key',
    description:
      'Strict JSON body (`value` is not accepted). Idempotent even if the key or the integration is absent; the other key, logo, webhook URLs and x_token are preserved. Removal without a fallback can interrupt future notifications. A wrong `current_password` is 422 on that field.',
    access: 'admin',
    limits: keyLimit('delete'),
    pathParameters: ['keyType'],
    body: { schema: inputJsonSchema(deleteIntegrationKeyInput) },
    responses: { 204: { description: 'Removed (empty body).' } },
    cacheControl: 'no-store, private',
    pending: true,
  },
]
