/*
| portal-api.md › Merchant and logo: the endpoints of MerchantController. Request
| bodies are the validators the routes validate with (app/validators/merchant.ts);
| the overrides state the bounds of the custom rules, which emit no JSON Schema of
| their own (lengths in characters, the HTTPS website rule). docs/merchant.md has the
| choices the contract leaves open.
*/
import { merchantUpdateInput, merchantUpdatePrechecks } from '#validators/merchant'
import { NO_BODY } from '#validators/rules/input'
import type { FieldOverrides } from '#openapi/json_schema'
import { ref } from '#openapi/components'
import MerchantTransformer from '#transformers/merchant_transformer'
import { endpointsOf } from '#http/endpoint'
import { adminStack, portalStack } from '#http/stacks'
import { FILE_PART_DISPOSITION } from '#http/single_file_upload'

// Character bounds come with the `lengthBetween` rule (#validators/rules/text_length);
// the website's pattern and bound with its rule (#validators/rules/website).
const MERCHANT_UPDATE_OVERRIDES: FieldOverrides = {
  website: {
    type: ['string', 'null'],
    description:
      'An absolute `https://` URL as RFC 3986 writes it (ASCII: an international domain name in punycode, other characters percent-encoded), with a host name or IPv4 address, no user info, an optional port; null, or an empty string (stored as null). Anything else is 422, never rewritten.',
  },
}

export const merchantEndpoints = endpointsOf({
  show: {
    method: 'get',
    path: '/api/v1/portal/merchant',
    name: 'merchant.show',
    stack: portalStack(),
    operationId: 'getMerchant',
    tag: 'Merchant',
    summary: 'Read the merchant profile',
    description: 'The merchant of the signed-in user.',
    response: {
      description: 'The merchant.',
      data: ref('Merchant'),
      transformer: MerchantTransformer,
      message: 'Success',
    },
  },
  update: {
    method: 'patch',
    path: '/api/v1/portal/merchant',
    name: 'merchant.update',
    stack: adminStack(),
    operationId: 'updateMerchant',
    tag: 'Merchant',
    summary: 'Update the merchant profile',
    description:
      'Strict body: at least one of the listed fields; omitted fields are unchanged. Supplied fields other than `website` cannot be null or empty; `website` is null or an HTTPS URL (an empty string becomes null). Strings are trimmed; `email` is also lowercased. Single-line fields refuse control characters; `address` may hold line breaks. Read-only fields (id, reference_id, currency, is_active, is_production, services, timestamps, fees, settlement or provider settings, credentials) are rejected with 422.',
    body: {
      input: merchantUpdateInput,
      prechecks: merchantUpdatePrechecks,
      overrides: MERCHANT_UPDATE_OVERRIDES,
      enforcedByPrechecks: { minProperties: 1 },
    },
    response: {
      description: 'The updated merchant.',
      data: ref('Merchant'),
      transformer: MerchantTransformer,
      message: 'Merchant profile updated.',
    },
  },
  showLogo: {
    method: 'get',
    path: '/api/v1/portal/merchant/logo',
    name: 'merchant.logo.show',
    stack: portalStack(),
    operationId: 'getMerchantLogo',
    tag: 'Merchant',
    summary: 'Read the logo URL',
    description:
      '`data.url` is null when there is no logo or the stored file is missing or unusable.',
    response: { description: 'The logo URL.', data: ref('MerchantLogo'), message: 'Success' },
  },
  storeLogo: {
    method: 'post',
    path: '/api/v1/portal/merchant/logo',
    name: 'merchant.logo.store',
    dropsWorkWhenClientLeaves: true,
    // The multipart body is read by the controller (config/bodyparser.ts
    // processManually), after authentication and the role check.
    stack: adminStack({ body: { types: ['multipart'] } }),
    operationId: 'uploadMerchantLogo',
    tag: 'Merchant',
    summary: 'Upload the logo',
    description:
      'Multipart (`multipart/form-data`) with exactly one part, the file `file`: a real PNG (an animated one too: its first frame is kept), JPEG or WebP image (recognised by its content, not its name or part type), sent as a file part, whose `Content-Disposition` carries a `filename` (any name: it plays no part; a part without one is a text value, refused as not a file), at most 2,048 KB, at most 4096 pixels a side, its longer side at most 32 times its shorter (judged from the image header, before anything is decoded). Other types, invalid, truncated or polyglot content, a missing file, a second file, extra fields, a query string, malformed multipart or oversize (cut off while streaming): 422 `VALIDATION_ERROR`, never 413. Another request content type: 415. The image is re-encoded without metadata and stored under a per-merchant location with a server-generated name; the client filename never chooses storage. The previous logo is removed. The stored copy is at most 2,048 KB: when the usual re-encoding is larger, a smaller one is used (lower quality for JPEG and WebP; PNG stays lossless), and when that is over too the image is scaled down, its aspect ratio kept, until it fits: a valid image within the bounds is always stored. Images are processed a few at a time per server: when too many uploads already wait, this merchant already has two in progress, or the recent images of this merchant took their share of processing time (`LOGO_IMAGE_SECONDS_PER_MINUTE` seconds a minute), the answer is 503 `SERVICE_UNAVAILABLE` at once with `Retry-After` (seconds: the expected wait), before the body is read (so whatever it carries); nothing was stored and the upload can be sent again. An image whose processing passes its deadline (`LOGO_IMAGE_DEADLINE_SECONDS`, 20 s by default) is 503 with `Retry-After` too.',
    // Read by the controller (config/bodyparser.ts processManually): no 413.
    parsesBody: false,
    query: { input: NO_BODY },
    documentedBody: {
      mediaType: 'multipart/form-data',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['file'],
        properties: {
          file: {
            type: 'string',
            format: 'binary',
            contentMediaType: 'application/octet-stream',
            description:
              'The image: PNG, JPEG or WebP, at most 2,048 KB (2,097,152 bytes), as a file part with a `filename` (any).',
          },
        },
      },
      encoding: {
        file: {
          contentType: 'image/png, image/jpeg, image/webp',
          headers: {
            'Content-Disposition': {
              required: true,
              description:
                '`form-data; name="file"; filename="<any name>"`: the filename is required (a part without one is not a file) and ignored.',
              schema: { type: 'string', pattern: FILE_PART_DISPOSITION },
            },
          },
        },
      },
    },
    response: {
      description: 'Stored; the new URL.',
      data: ref('MerchantLogo'),
      message: 'Logo updated.',
    },
    errors: ['UNSUPPORTED_MEDIA_TYPE'],
  },
  destroyLogo: {
    method: 'delete',
    path: '/api/v1/portal/merchant/logo',
    name: 'merchant.logo.destroy',
    stack: adminStack(),
    operationId: 'deleteMerchantLogo',
    tag: 'Merchant',
    summary: 'Remove the logo',
    description:
      'No body or query (supplied fields are rejected with 422). Idempotent when no logo exists.',
    query: { input: NO_BODY },
    body: { input: NO_BODY, required: false },
    response: { status: 204, description: 'Removed (empty body).' },
  },
})
