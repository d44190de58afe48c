/*
| `meta.coverage` of a transaction's history (portal-api.md › History item), from the
| evidence kinds it holds (evidence_kinds.ts).
*/
import { KIND_DEFINITIONS, type EvidenceKind } from '#services/collections/history/evidence_kinds'
import {
  HISTORY_EVENT_TYPES,
  type CoverageState,
  type HistoryEventType,
} from '#models/collections_vocabulary'

/**
 * `meta.coverage` of a transaction's history from counts per shown event type:
 * `captured` when any record of the type is unpurged, `purged` when all are purged,
 * `not_captured` when there are none. (`not_applicable` is reserved, never emitted.)
 */
export function coverageOf(
  counts: Partial<Record<HistoryEventType, { total: number; unpurged: number }>>
): Record<HistoryEventType, CoverageState> {
  const coverage = {} as Record<HistoryEventType, CoverageState>
  for (const type of HISTORY_EVENT_TYPES) {
    const count = counts[type]
    coverage[type] =
      !count || count.total === 0 ? 'not_captured' : count.unpurged > 0 ? 'captured' : 'purged'
  }
  return coverage
}

/** The shown event type of an evidence kind (null: never shown). */
export function eventTypeOf(kind: EvidenceKind): HistoryEventType | null {
  return KIND_DEFINITIONS[kind].shownAs?.eventType ?? null
}
