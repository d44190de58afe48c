import pg from 'pg'
import { buildBuckets } from './app/reporting/calendar.ts'
import { planReads } from './app/reporting/query_plan.ts'
import { aggregateStatement } from './app/reporting/aggregate_statement.ts'
import { parseTimestamp } from './app/validators/rules/timestamp.ts'
const sql = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/mp_metrics_bench' }); await sql.connect()
const m = (await sql.query("select merchant_id from transactions limit 1")).rows[0].merchant_id
const r = buildBuckets(parseTimestamp('2025-11-21T00:00:00+08:00')!.epochMicros, parseTimestamp('2026-11-22T00:00:00+08:00')!.epochMicros, 'Asia/Manila', 'day')
if (!r.ok) throw 1
const { sql: text, bindings } = aggregateStatement({ merchantId: m, environment: 'live', currency: 'PHP' }, planReads(r.buckets))
let i = 0
const res = await sql.query({ text: 'EXPLAIN (ANALYZE, BUFFERS) ' + text.replace(/\?/g, () => `$${++i}`), values: bindings })
console.log(res.rows.map((x: any) => x['QUERY PLAN']).join('\n'))
await sql.end()
