/*
| Part names of a multipart body as a request body (portal-api.md › Merchant and logo:
| extra fields are 422 on their own name). The text fields are nested as the body
| parser would nest them (`a[b]`, repeated names as arrays), in null-prototype objects
| only, so a name such as `__proto__` or `constructor` is an ordinary key, refused by
| name like every other unlisted field.
*/
import { isPlainObject } from '#support/plain_object'

/** Segments of a bracketed field name (`a[b][c]`) nested in the body; deeper stay flat. */
const MAX_NAME_DEPTH = 5

/** The field a part name stands for: up to its first `[` (`tags[]`, `merchant[id]`). */
export function baseName(name: string) {
  const bracket = name.indexOf('[')
  return bracket > 0 ? name.slice(0, bracket) : name
}

/**
 * The path of a part name: `merchant[id]` → merchant, id; a trailing `[]` appends.
 * Any other shape, or one nested too deep, is one flat name.
 */
function pathOf(name: string): { path: string[]; append: boolean } {
  const flat = { path: [name], append: false }
  const bracket = name.indexOf('[')
  if (bracket <= 0) return flat
  const rest = name.slice(bracket)
  if (!/^(?:\[[^[\]]*\])+$/.test(rest)) return flat
  const segments = [...rest.matchAll(/\[([^[\]]*)\]/g)].map((match) => match[1])
  const append = segments.at(-1) === ''
  if (append) segments.pop()
  const path = [name.slice(0, bracket), ...segments]
  return path.length > MAX_NAME_DEPTH ? flat : { path, append }
}

/**
 * Adds a text field to the body. Every object is null-prototype, so any name
 * (`__proto__`, `constructor`) is an own key and nothing else. A name whose shape
 * clashes with an earlier field's (`a=1` then `a[b]=2`) is not nested: it is refused
 * by its name like every field but the file.
 */
export function addField(fields: Record<string, unknown>, name: string, value: string) {
  const { path, append } = pathOf(name)
  let node = fields
  for (const key of path.slice(0, -1)) {
    const next = node[key]
    if (next === undefined) {
      const child: Record<string, unknown> = Object.create(null)
      node[key] = child
      node = child
    } else if (isPlainObject(next)) {
      node = next
    } else {
      return
    }
  }
  const last = path[path.length - 1]
  const existing = node[last]
  if (existing === undefined) node[last] = append ? [value] : value
  else if (Array.isArray(existing)) existing.push(value)
  else if (typeof existing === 'string') node[last] = [existing, value]
}
