/*
| The omissions of a projected body (project_body.ts): only the projection's own
| vocabulary becomes a path, never a name chosen by the sender.
*/
import {
  UNLISTED_FIELDS,
  URL_LIKE,
  type FieldRule,
  type Omission,
  type Payload,
} from '#services/collections/history/projection'
import type { ReasonCode } from '#models/collections_vocabulary'

/**
 * The omissions of one item, each (path, reason) once, in order of first appearance.
 * Only the projection's own vocabulary becomes a path: the allowlisted names, and
 * `*` for the fields at a level that are not on its allowlist.
 */
export class OmissionList {
  private readonly entries = new Map<string, Omission>()

  /** An allowlisted field (or `body`, `data`) whose value was not shown. */
  addField(fieldPath: string, reason: ReasonCode) {
    const key = `${fieldPath}\u0000${reason}`
    if (!this.entries.has(key))
      this.entries.set(key, { field_path: fieldPath, reason_code: reason })
  }

  /** A field not on the allowlist of the level `path` ('' for the top): never named. */
  addUnlisted(path: string, reason: ReasonCode) {
    this.addField(path ? `${path}.${UNLISTED_FIELDS}` : UNLISTED_FIELDS, reason)
  }

  get size() {
    return this.entries.size
  }

  toArray(): Omission[] {
    return [...this.entries.values()]
  }
}

/**
 * Copies the allowed fields of `source` that pass their rule into a new object
 * (allowlist order). An allowed field failing its rule is omitted by name under
 * `reason`; every other field is omitted as `*` of its level, under
 * `payment_url_excluded` when its name looks like a link, else under `reason`. Own
 * properties only, so `__proto__` or `constructor` keys are plain unlisted fields.
 */
export function pickAllowed(
  source: Record<string, unknown>,
  rules: Record<string, FieldRule>,
  reason: ReasonCode,
  omissions: OmissionList,
  path = ''
): Payload {
  const picked: Payload = {}
  for (const [name, rule] of Object.entries(rules)) {
    if (!Object.hasOwn(source, name)) continue
    if (rule(source[name])) picked[name] = source[name]
    else omissions.addField(path ? `${path}.${name}` : name, reason)
  }
  for (const name of Object.keys(source)) {
    if (Object.hasOwn(rules, name)) continue
    omissions.addUnlisted(path, URL_LIKE.test(name) ? 'payment_url_excluded' : reason)
  }
  return picked
}
