/*
| `node ace history:reproject [--dry-run]` (decisions.md §5): re-runs the projection
| (app/services/collections/history/project_evidence.ts) over stored snapshots, so that history reads, which
| serve only the stored projection, follow allowlists changed since the evidence was
| written. The migration that introduced stored projections runs it too.
|
| Due rows: unpurged, with a snapshot, projected with another PROJECTION_VERSION (or
| never). Work goes in batches of short transactions, each claiming its rows with
| `FOR UPDATE SKIP LOCKED` in id order after the last id the run claimed (no batch reads
| again the rows done before it: without that cursor, each batch walked every row done
| so far, and a run's cost grew with the square of the rows): runs on several hosts
| share the rows, a row is re-projected once, and a purge never races a re-projection
| of the same row. A row done carries the current version, so an interrupted run
| resumes where it stopped and a second run finds nothing to do (a row another run
| held and gave up on included). Snapshots (up to the 2 MiB read bound; larger ones
| are withheld unread and need no projection) are fetched a few MiB at a time.
|
| An aborted `signal` (the command's SIGTERM or SIGINT) stops the run before its next
| batch: the run is audited as interrupted with its counts, and the next run resumes.
*/
import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { PROJECTION_VERSION, type EvidenceFacts } from '#services/collections/history/projection'
import { projectSnapshot } from '#services/collections/history/project_evidence'
import { snapshotReadable } from '#services/collections/history/snapshot_readability'
import {
  openSnapshot,
  sealProjection,
  type Snapshot,
} from '#services/collections/history/evidence_snapshot'
import type { EvidenceKind } from '#services/collections/history/evidence_kinds'
import { audit } from '#services/audit/audit_trail'
import { EVENT_IDS } from '#services/collections/history/evidence_layout'
import { SYSTEM_ACTOR } from '#auth/actor'

export const REPROJECT_BATCH_ROWS = 200
/** Ciphertext bytes fetched per statement inside a batch. */
const FETCH_BYTES = 8 * 1024 * 1024

export interface ReprojectOptions {
  dryRun?: boolean
  batchRows?: number
  onProgress?: (progress: { done: number; due: number }) => void
  /** Aborted: stop before the next batch (the result says interrupted). */
  signal?: AbortSignal
}

export type ReprojectResult = {
  dry_run: boolean
  projection_version: number
  /** Rows due when the run started. */
  due: number
  /** Rows this run re-projected (less than `due` when another run shared the work). */
  reprojected: number
  batches: number
  /** Stopped by the signal before the work was done. */
  interrupted: boolean
}

const DUE = `purged_at IS NULL AND snapshot_ciphertext IS NOT NULL
  AND projection_version IS DISTINCT FROM ?`

const CLAIM_BATCH = `
SELECT id, kind, schema_version, snapshot_size, content_type, body_capture_status,
  delivery_state, duration_ms, is_repeated_request
FROM exchange_evidence
WHERE id > ? AND ${DUE}
ORDER BY id
LIMIT ?
FOR UPDATE SKIP LOCKED`

const STORE_BATCH = `
UPDATE exchange_evidence e
SET projection_ciphertext = v.projection, projection_version = ?
FROM unnest(?::${EVENT_IDS}, ?::bytea[]) AS v(id, projection)
WHERE e.id = v.id`

interface ClaimedRow {
  id: string
  kind: EvidenceKind
  schema_version: number | null
  snapshot_size: number | null
  content_type: string | null
  body_capture_status: string | null
  delivery_state: string | null
  duration_ms: number | null
  is_repeated_request: boolean | null
}

/**
 * A text[] literal of ULIDs (nothing to escape). knex would spread a JS array binding
 * into a list.
 */
const textArray = (values: string[]) => `{${values.map((value) => `"${value}"`).join(',')}}`

/** A bytea[] literal of sealed values in hex (`\x`, its backslash escaped), null as NULL. */
const byteaArray = (values: Array<Buffer | null>) =>
  `{${values.map((value) => (value === null ? 'NULL' : `"\\\\x${value.toString('hex')}"`)).join(',')}}`

function factsOf(row: ClaimedRow): EvidenceFacts {
  return {
    kind: row.kind,
    schemaVersion: row.schema_version,
    hasSnapshot: true,
    snapshotSize: row.snapshot_size,
    contentType: row.content_type,
    bodyCaptureStatus: row.body_capture_status,
    deliveryState: row.delivery_state,
    durationMs: row.duration_ms,
    isRepeatedRequest: row.is_repeated_request,
    purgedAt: null,
  }
}

async function countDue(): Promise<number> {
  const result = await db.rawQuery(
    `SELECT count(*)::int AS due FROM exchange_evidence WHERE ${DUE}`,
    [PROJECTION_VERSION]
  )
  return result.rows[0].due
}

/**
 * Re-projects one batch claimed after id `after`; returns the last id it claimed (null
 * when none was left) and how many rows it wrote.
 */
async function reprojectBatch(trx: TransactionClientContract, batchRows: number, after: string) {
  const claim = await trx.rawQuery(CLAIM_BATCH, [after, PROJECTION_VERSION, batchRows])
  if (claim.rows.length === 0) return { last: null, written: 0 }
  const last: string = claim.rows[claim.rows.length - 1].id
  // Over the view (migration 1110) the lock is the record's and the version the body's:
  // a row another run re-projected while this claim waited is still due in the claim's
  // snapshot, so what is due is read again now that the rows are held.
  const still = await trx.rawQuery(
    `SELECT id FROM exchange_evidence WHERE id = ANY(?::${EVENT_IDS}) AND ${DUE}`,
    [textArray(claim.rows.map((row: ClaimedRow) => row.id)), PROJECTION_VERSION]
  )
  const due = new Set(still.rows.map((row: { id: string }) => row.id))
  const claimed: ClaimedRow[] = claim.rows.filter((row: ClaimedRow) => due.has(row.id))
  const projections = new Map<string, Buffer | null>()
  const readable: Array<{ row: ClaimedRow; facts: EvidenceFacts }> = []
  for (const row of claimed) {
    const facts = factsOf(row)
    // Withheld from its columns alone (schema, size, bodiless state): nothing to store.
    if (!snapshotReadable(facts)) projections.set(row.id, null)
    else readable.push({ row, facts })
  }
  for (let start = 0; start < readable.length;) {
    let bytes = 0
    let end = start
    while (
      end < readable.length &&
      (end === start || bytes + (readable[end].row.snapshot_size ?? 0) <= FETCH_BYTES)
    ) {
      bytes += readable[end].row.snapshot_size ?? 0
      end++
    }
    const group = readable.slice(start, end)
    const ciphertexts = new Map<string, Buffer>()
    const fetched = await trx.rawQuery(
      `SELECT id, snapshot_ciphertext FROM exchange_evidence WHERE id = ANY(?::${EVENT_IDS})`,
      [textArray(group.map(({ row }) => row.id))]
    )
    for (const row of fetched.rows) ciphertexts.set(row.id, row.snapshot_ciphertext)
    for (const { row, facts } of group) {
      const ciphertext = ciphertexts.get(row.id)
      const snapshot: Snapshot | null = ciphertext ? openSnapshot(row.id, ciphertext) : null
      const projection = projectSnapshot(facts, snapshot)
      projections.set(row.id, projection ? sealProjection(row.id, projection) : null)
    }
    start = end
  }
  if (projections.size > 0) {
    await trx.rawQuery(STORE_BATCH, [
      PROJECTION_VERSION,
      textArray([...projections.keys()]),
      byteaArray([...projections.values()]),
    ])
  }
  return { last, written: projections.size }
}

export async function reprojectHistory(options: ReprojectOptions = {}): Promise<ReprojectResult> {
  const result: ReprojectResult = {
    dry_run: options.dryRun === true,
    projection_version: PROJECTION_VERSION,
    due: await countDue(),
    reprojected: 0,
    batches: 0,
    interrupted: false,
  }
  if (options.dryRun || result.due === 0) return result
  const batchRows = options.batchRows ?? REPROJECT_BATCH_ROWS
  try {
    // Every ULID sorts after the empty string.
    let after: string | null = ''
    while (after !== null) {
      if (options.signal?.aborted) {
        result.interrupted = true
        break
      }
      const cursor: string = after
      const batch = await db.transaction((trx) => reprojectBatch(trx, batchRows, cursor))
      after = batch.last
      // A batch whose rows another run had done meanwhile writes nothing: the run goes on.
      if (batch.written === 0) continue
      result.batches++
      result.reprojected += batch.written
      options.onProgress?.({ done: result.reprojected, due: result.due })
    }
  } catch (error) {
    await audit(undefined, SYSTEM_ACTOR, {
      action: 'history.reproject',
      outcome: 'failure',
      metadata: { reprojected: result.reprojected, batches: result.batches },
    }).catch(() => {})
    throw error
  }
  await audit(undefined, SYSTEM_ACTOR, {
    action: 'history.reproject',
    ...(result.interrupted
      ? { outcome: 'failure', reason: 'interrupted' }
      : { outcome: 'success' }),
    metadata: {
      projection_version: PROJECTION_VERSION,
      due: result.due,
      reprojected: result.reprojected,
      batches: result.batches,
      ...(result.interrupted && { interrupted: true }),
    },
  })
  return result
}
