import { ulid } from 'ulid'

/** Public, non-guessable references shown to clients (`mer_01J…`, `usr_01J…`). */
export function newReferenceId(prefix: 'mer' | 'usr'): string {
  return `${prefix}_${ulid()}`
}
