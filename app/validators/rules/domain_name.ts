/*
| Domain names as the email and website rules accept them. Labels of letters, digits
| and hyphens, 1-63 characters, never starting or ending with a hyphen; the last label
| is never a number (a URL parser would read the name as an IPv4 address): for a
| website it starts with a letter, for an address it is the top-level domain, two
| letters or more, or punycode (`xn--...`). Written as JSON Schema patterns
| (ECMA-262 with Unicode property escapes, no flags), since the OpenAPI document
| publishes them as they are.
| - ASCII: a name as a URL carries it (RFC 3986), an international name in punycode.
| - International: letters of any script too (RFC 6531 addresses, `ü@müller.de`).
*/

const PUNYCODE_TLD = '[Xx][Nn]--[A-Za-z0-9](?:[A-Za-z0-9-]{0,57}[A-Za-z0-9])?'

function domainName(letter: string) {
  const inner = `[${letter}0-9-]`
  const edge = `[${letter}0-9]`
  return {
    label: `${edge}(?:${inner}{0,61}${edge})?`,
    /** The last label of a host name: starts with a letter, so it is never a number. */
    lastLabel: `[${letter}](?:${inner}{0,61}${edge})?`,
    /** The last label of an address's domain, as mail systems accept it. */
    topLevel: `(?:[${letter}]{2,63}|${PUNYCODE_TLD})`,
  }
}

/** ASCII names: labels and the top-level domain. */
export const ASCII_NAME = domainName('A-Za-z')

/** Names in any script: a letter is any Unicode letter or combining mark. */
export const INTERNATIONAL_NAME = domainName('\\p{L}\\p{M}')

/** A domain of at least two labels (`example.com`), as after the `@` of an address. */
export const INTERNATIONAL_DOTTED_DOMAIN = `(?:${INTERNATIONAL_NAME.label}\\.)+${INTERNATIONAL_NAME.topLevel}`
