/*
| Machine-client labels are unique per merchant, case-insensitively, revoked records
| included (portal-api.md › Machine clients; docs/machine-clients.md). The label
| keeps its spelling; `label_normalized` (migration 0930) stores it through this one
| function, the identity rule of app/support/identity.ts (NFC, then JavaScript's
| lowercase), and the unique index and every lookup compare the stored values: SQL
| never lowercases, so PostgreSQL's `lower()` and its collation cannot disagree with
| the application.
*/
import { normalizeIdentity } from '#support/identity'

export function normalizeLabel(label: string): string {
  return normalizeIdentity(label)
}
