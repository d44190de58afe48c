/*
| Websites stored before the website rule (app/validators/rules/website.ts), when any
| https URL a WHATWG parser read was accepted: `hTTps://ĜŁĂ` or `https://x/%zz` made
| every merchant response break its own schema. Migration 1010 rewrites each such
| value as the URI it stands for, or clears it when there is none:
| - the URL parser's reading: the host in punycode and lowercase, the default port
|   dropped, spaces and non-ASCII characters percent-encoded;
| - then each character RFC 3986 does not allow where it stands (`|`, `{`, a second
|   `#`, a `%` that starts no percent-encoded byte...) percent-encoded in turn;
| - a value that is still not a website by the rule (not https, user info, a host
|   the rule refuses such as `a_b.example` or an IPv6 address, over 2,048
|   characters) becomes null, as an empty website does.
*/
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { isHttpsWebsite } from '#validators/rules/website'

/** RFC 3986 pchar characters and `/`; `?` too in a query or fragment. */
const PATH_CHARACTER = /[A-Za-z0-9._~!$&'()*+,;=:@/-]/
const QUERY_CHARACTER = /[A-Za-z0-9._~!$&'()*+,;=:@/?-]/

function percentEncodeOutside(text: string, allowed: RegExp): string {
  let result = ''
  for (let index = 0; index < text.length;) {
    const character = String.fromCodePoint(text.codePointAt(index)!)
    if (character === '%' && /^[0-9A-Fa-f]{2}$/.test(text.slice(index + 1, index + 3))) {
      result += text.slice(index, index + 3)
      index += 3
      continue
    }
    result += allowed.test(character) ? character : encodeURIComponent(character)
    index += character.length
  }
  return result
}

/** The stored value as a website by the rule, or null when it stands for none. */
export function repairedWebsite(stored: string): string | null {
  if (isHttpsWebsite(stored)) return stored
  let url: URL
  try {
    url = new URL(stored)
  } catch {
    return null
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') return null
  const query = url.search && `?${percentEncodeOutside(url.search.slice(1), QUERY_CHARACTER)}`
  const fragment = url.hash && `#${percentEncodeOutside(url.hash.slice(1), QUERY_CHARACTER)}`
  const repaired = `https://${url.host}${percentEncodeOutside(url.pathname, PATH_CHARACTER)}${query}${fragment}`
  return isHttpsWebsite(repaired) ? repaired : null
}

/** Rewrites or clears every stored website the rule refuses; returns how many changed. */
export async function repairStoredWebsites(client: Pick<QueryClientContract, 'from'>) {
  const rows: Array<{ id: number; website: string }> = await client
    .from('merchants')
    .whereNotNull('website')
    .select('id', 'website')
    .orderBy('id', 'asc')
  let changed = 0
  for (const row of rows) {
    if (isHttpsWebsite(row.website)) continue
    await client
      .from('merchants')
      .where('id', row.id)
      .update({ website: repairedWebsite(row.website) })
    changed += 1
  }
  return changed
}
