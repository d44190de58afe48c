/*
| portal-api.md › Merchant resource: `website` is an HTTPS URL (max 2,048) or null.
| The rule, one expression that the validator applies and the OpenAPI document
| publishes as the field's `pattern` (requests and responses), so every stored value
| is a URI as RFC 3986 and a strict `format: uri` check read it, and a URL parser
| (WHATWG, browsers) opens it:
| - the scheme `https` (any case), `//`, no user info;
| - a host: an ASCII domain name whose last label starts with a letter
|   (domain_name.ts; an international name in its punycode form, `xn--...`),
|   optionally ending in a dot, or an IPv4 address;
| - an optional port from 1 to 65535;
| - a path, query and fragment of RFC 3986's characters, where `%` starts a
|   percent-encoded byte (two hex digits) and anything else (spaces, non-ASCII
|   letters, `{`, `|`...) must be percent-encoded by the client.
| A value that is not such a URI is refused (422), never rewritten: docs/merchant.md.
*/
import { ASCII_NAME } from '#validators/rules/domain_name'
import { positiveIntegerUpToGroup } from '#validators/rules/integer_range'
import { MERCHANT_FIELD_MAX_LENGTH } from '#models/merchant_fields'

export const WEBSITE_MAX_LENGTH = MERCHANT_FIELD_MAX_LENGTH.website

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])'
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`
const DOMAIN = `(?:${ASCII_NAME.label}\\.)*${ASCII_NAME.lastLabel}\\.?`
const PORT = positiveIntegerUpToGroup(65_535)
/** RFC 3986 pchar: unreserved, sub-delims, `:`, `@`, or a percent-encoded byte. */
const PCHAR = "(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})"

/** An absolute https URL as RFC 3986 writes it, with the host and port rules above. */
export const HTTPS_WEBSITE = new RegExp(
  `^[Hh][Tt][Tt][Pp][Ss]://(?:${IPV4}|${DOMAIN})(?::${PORT})?` +
    `(?:/${PCHAR}*)*(?:\\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?$`
)

/** Whether a stored or submitted value is a website by the rule (length included). */
export function isHttpsWebsite(value: string): boolean {
  return value.length <= WEBSITE_MAX_LENGTH && HTTPS_WEBSITE.test(value)
}
