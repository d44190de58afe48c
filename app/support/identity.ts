/*
| The one normalization of sign-in identities (emails and usernames): Unicode NFC,
| then JavaScript's lowercase. Stored next to (usernames) or instead of (emails) the
| value as given, and compared as stored: SQL never lowercases, so PostgreSQL's
| `lower()` (which differs from JavaScript for `İ`, a final `Σ` and others, and by
| collation) can never disagree with the application.
*/
export function normalizeIdentity(value: string): string {
  return value.normalize('NFC').toLowerCase()
}
