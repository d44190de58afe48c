/*
| The hand-written peer of bench/chart_zones.ts: `node:http` + `pg`, no framework,
| serving GET /api/v1/portal/collections/charts (unfiltered, interval=day) straight
| from `transactions`, without the rollups:
|
|   the PAT as one prepared statement (token ⋈ user ⋈ merchant ⋈ Portal client, as
|   app/auth/portal_access_tokens.ts resolves it), SHA-256 of the secret against the
|   stored hash, expiry; the API limit per user (the PostgreSQL limiter store's
|   upsert); then one prepared statement: the range's transactions counted and summed
|   per local day (count/sum FILTER by status, days from date_trunc in the reporting
|   zone), joined to the local days of generate_series in that zone, and the
|   currency's catalogue row.
|
| The body is the service's: bounds in the zone's offset with six fractional digits
| (formatted by app/support/zoned_instants.ts, the one place that writes them), money
| with two decimals, the rate rounded half-up. Only what bench/chart_zones.ts sends is
| served.
|
| Usage: DATABASE_URL=... PEER_PORT=3421 node --import=@poppinss/ts-exec bench/peers/chart_peer.ts
*/
import type http from 'node:http'
import pg from 'pg'
import { authorizeRead, failure, send, servePeer } from './peer_access.js'
import { formatInstant } from '../../app/support/zoned_instants.ts'
import { formatCents, parseCents, successRatePercent } from '../../app/support/money.ts'
import { parseTimestamp } from '../../app/validators/rules/timestamp.ts'

const PORT = Number(process.env.PEER_PORT ?? 3421)
// JIT off, as the service's sessions have it (config/database.ts).
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: 10,
  options: '-c jit=off',
})

// $1 merchant, $2 environment, $3 currency, $4 from, $5 to, $6 zone. The range's rows
// counted per local day in one pass, joined to every local day [midnight, next
// midnight) of the range in the zone, clipped to [from, to).
const DAILY = `with totals as (
    select date_trunc('day', created_at at time zone $6::text) as local_day,
           count(*) as transaction_count,
           count(*) filter (where status = 'PAID') as successful_count,
           count(*) filter (where status = 'PENDING') as pending_count,
           count(*) filter (where status = 'REJECTED') as rejected_count,
           coalesce(sum(amount) filter (where status = 'PAID'), 0) as collection_total,
           count(*) filter (where status = 'PAID' and amount is null) as paid_without_amount
      from transactions
     where merchant_id = $1 and environment = $2 and currency = $3
       and created_at >= $4::timestamptz and created_at < $5::timestamptz
     group by 1
  ), days as (
    select local_day, to_char(local_day, 'YYYY-MM-DD') as day,
           greatest(local_day at time zone $6::text, $4::timestamptz) as lo,
           least((local_day + interval '1 day') at time zone $6::text, $5::timestamptz) as hi,
           local_day at time zone $6::text < $4::timestamptz
             or (local_day + interval '1 day') at time zone $6::text > $5::timestamptz as partial
      from generate_series(date_trunc('day', $4::timestamptz at time zone $6::text),
                           ($5::timestamptz - interval '1 microsecond') at time zone $6::text,
                           interval '1 day') as local_day
  )
  select d.day, (extract(epoch from d.lo) * 1000000)::bigint::text as lo_micros,
         (extract(epoch from d.hi) * 1000000)::bigint::text as hi_micros, d.partial,
         coalesce(t.successful_count, 0) as successful_count,
         coalesce(t.pending_count, 0) as pending_count,
         coalesce(t.rejected_count, 0) as rejected_count,
         coalesce(t.collection_total, 0) as collection_total,
         coalesce(t.paid_without_amount, 0) as paid_without_amount,
         exists (select 1 from currencies where code = $3) as supported
    from days d left join totals t using (local_day)
   order by d.local_day`

function figures(paid: bigint, pending: bigint, rejected: bigint, cents: bigint) {
  const total = paid + pending + rejected
  return {
    collection_total: formatCents(cents),
    transaction_count: Number(total),
    successful_count: Number(paid),
    pending_count: Number(pending),
    rejected_count: Number(rejected),
    success_rate_percent: successRatePercent(paid, total),
  }
}

async function chart(request: http.IncomingMessage, response: http.ServerResponse) {
  const url = new URL(request.url!, 'http://peer')
  const actor = await authorizeRead(pool, request, response)
  if (!actor) return

  const search = url.searchParams
  const [environment, currency, timezone] = ['environment', 'currency', 'timezone'].map((name) =>
    search.get(name)!
  )
  const from = parseTimestamp(search.get('from')!)!.epochMicros
  const to = parseTimestamp(search.get('to')!)!.epochMicros
  const asOf = new Date().toISOString()
  const { rows } = await pool.query({
    name: 'peer:daily',
    text: DAILY,
    values: [
      actor.merchantId,
      environment,
      currency,
      search.get('from'),
      search.get('to'),
      timezone,
    ],
  })
  if (!rows[0]?.supported) return send(response, 422, failure('VALIDATION_ERROR', 'Currency.'))
  if (rows.some((row) => Number(row.paid_without_amount) > 0)) {
    return send(response, 503, failure('SERVICE_UNAVAILABLE', 'A paid amount is missing.'))
  }
  const totals = { paid: 0n, pending: 0n, rejected: 0n, cents: 0n }
  const buckets = rows.map((row) => {
    const [paid, pending, rejected] = [
      BigInt(row.successful_count),
      BigInt(row.pending_count),
      BigInt(row.rejected_count),
    ]
    const cents = parseCents(row.collection_total)
    totals.paid += paid
    totals.pending += pending
    totals.rejected += rejected
    totals.cents += cents
    return {
      period: row.day,
      from: formatInstant(BigInt(row.lo_micros), timezone),
      to: formatInstant(BigInt(row.hi_micros), timezone),
      partial: row.partial,
      ...figures(paid, pending, rejected, cents),
    }
  })
  send(response, 200, {
    success: true,
    message: 'Success',
    data: {
      environment,
      currency,
      timezone,
      interval: 'day',
      date_basis: 'created_at',
      from: formatInstant(from, timezone),
      to: formatInstant(to, timezone),
      as_of: asOf,
      totals: figures(totals.paid, totals.pending, totals.rejected, totals.cents),
      buckets,
    },
  })
}

servePeer(PORT, '/api/v1/portal/collections/charts?', chart)
