/*
| Synthetic collection transactions in the import format (decisions.md §5), for the
| dataset generator and the import benchmark. Deterministic for a seed, so the same
| options always give the same file. Realistic enough to exercise lists, filters and
| history: a year of creation times, both environments, several brands, every status
| including lowercase and legacy codes, amounts with pennies, a few null amounts and
| creation times, references containing `%` and `_`, and evidence of every kind with
| bodies that carry fields the Portal must never show (URLs, customer data).
*/
import { DateTime } from 'luxon'

export interface SyntheticOptions {
  merchantId: number
  transactions: number
  /** Total events; spread evenly over the transactions. */
  events: number
  seed?: number
  /** merchant_transaction_id prefix. */
  prefix?: string
  /** The end of the year the creation times cover (default now). */
  end?: DateTime
}

/** mulberry32: a small, fast, seedable PRNG. */
export function random(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function weighted<T>(next: () => number, table: Array<[T, number]>): T {
  let pick = next() * table.reduce((sum, [, weight]) => sum + weight, 0)
  for (const [value, weight] of table) {
    pick -= weight
    if (pick < 0) return value
  }
  return table[table.length - 1][0]
}

const BRANDS: Array<[string, number]> = [
  ['gcash', 40],
  ['maya', 20],
  ['grabpay', 10],
  ['shopeepay', 8],
  ['card_visa', 12],
  ['card_mastercard', 7],
  ['bpi_online', 3],
]

/** [payment_status, legacy_status, weight]: recognized, lowercase, and legacy-only rows. */
const STATUSES: Array<[[string | null, string | null], number]> = [
  [['PAID', null], 60],
  [['PENDING', null], 12],
  [['REJECTED', null], 10],
  [['paid', null], 2],
  [['Rejected', 'S'], 1],
  [[null, 'S'], 6],
  [[null, 'R'], 4],
  [[null, 'P'], 3],
  [['EXPIRED', 'X'], 1],
  [[null, null], 1],
]

const EXTRA_KINDS = [
  'merchant_notification.response',
  'merchant_notification.queued',
  'merchant_notification.delivery_attempt',
  'provider.request',
  'provider.response',
  'internal',
] as const

const iso = (at: DateTime) => at.toISO({ suppressMilliseconds: false })!

function amountOf(next: () => number): string | null {
  const roll = next()
  if (roll < 0.01) return null
  if (roll < 0.04) return ['0.01', '0.05', '0.10', '0.99', '1.01'][Math.floor(next() * 5)]
  const cents = 2_000 + Math.floor(next() * 2_500_000)
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`
}

function referenceOf(prefix: string, index: number, next: () => number) {
  const number = String(index + 1).padStart(8, '0')
  const roll = next()
  if (roll < 0.001) return `${prefix}_50%OFF-${number}`
  if (roll < 0.002) return `${prefix}!PROMO_${number}`
  return `${prefix}-${number}`
}

export function eventsOf(
  next: () => number,
  index: number,
  count: number,
  tx: {
    merchant_transaction_id: string
    amount: string | null
    currency: string
    payment_brand: string
    payment_status: string | null
  },
  createdAt: DateTime
) {
  const events: Array<Record<string, unknown>> = []
  const status = tx.payment_status?.toUpperCase()
  const paymentStatus = status === 'PAID' || status === 'REJECTED' ? status : 'PENDING'
  for (let position = 0; position < count; position++) {
    const kind =
      position === 0
        ? 'merchant_request.validated'
        : position === 1
          ? 'merchant_response.synchronous'
          : EXTRA_KINDS[(index + position) % EXTRA_KINDS.length]
    const capturedAt = createdAt.plus({
      milliseconds: 120 + position * 1_500 + Math.floor(next() * 900),
    })
    const event: Record<string, unknown> = {
      kind,
      captured_at: iso(capturedAt),
      schema_version: next() < 0.1 ? 1 : 2,
      capture_format: 'sanitized_snapshot',
    }
    switch (kind) {
      case 'merchant_request.validated':
        event.content_type = 'application/json'
        event.body = {
          merchant_transaction_id: tx.merchant_transaction_id,
          amount: tx.amount ?? '0.00',
          currency: tx.currency,
          payment_brand: tx.payment_brand,
          channel: 1 + Math.floor(next() * 4),
          is_card_payment: tx.payment_brand.startsWith('card_'),
          success_url: 'https://shop.example/ok',
          failure_url: 'https://shop.example/fail',
          customer: { email: `buyer${index}@mail.example`, mobile: '+639170000000' },
        }
        break
      case 'merchant_response.synchronous':
        event.content_type = 'application/json'
        event.is_repeated_request = next() < 0.02
        event.http_status = 201
        event.body_capture_status = 'captured_sanitized'
        event.body = {
          success: true,
          data: {
            merchant_transaction_id: tx.merchant_transaction_id,
            amount: tx.amount ?? '0.00',
            payment_status: 'PENDING',
            is_card_payment: tx.payment_brand.startsWith('card_'),
            timestamp: iso(capturedAt),
            payment_url: `https://pay.example/checkout/${index}`,
          },
        }
        break
      case 'merchant_notification.queued':
        event.content_type = 'application/json'
        event.event_id = `evt_${index}_${position}`
        event.delivery_state = next() < 0.95 ? 'delivered' : 'exhausted'
        event.body = {
          merchant_transaction_id: tx.merchant_transaction_id,
          amount: tx.amount ?? '0.00',
          currency: tx.currency,
          payment_brand: tx.payment_brand,
          payment_status: paymentStatus,
          provider_reference: `PRV${index}`,
        }
        break
      case 'merchant_notification.response': {
        const roll = next()
        event.event_id = `evt_${index}_${position}`
        event.attempt_number = 1 + Math.floor(next() * 3)
        event.http_status = roll < 0.9 ? 200 : 500
        event.duration_ms = 40 + Math.floor(next() * 2_000)
        event.delivery_state = roll < 0.9 ? 'delivered' : 'failed'
        if (roll < 0.6) {
          event.content_type = 'application/json'
          event.body_capture_status = 'captured'
          event.body = { acknowledged: true, status: 'ok', note: 'thanks' }
        } else if (roll < 0.9) {
          event.content_type = 'text/plain'
          event.body_capture_status = 'captured'
          event.body_text = 'OK'
        } else {
          event.body_capture_status = 'empty'
        }
        break
      }
      case 'merchant_notification.delivery_attempt':
        event.capture_format = 'legacy_sanitized_snapshot'
        event.event_id = `evt_${index}_${position}`
        event.attempt_number = 1 + Math.floor(next() * 5)
        event.http_status = next() < 0.8 ? 200 : 503
        event.duration_ms = 50 + Math.floor(next() * 5_000)
        event.delivery_state = 'delivered'
        break
      case 'provider.request':
        event.content_type = 'application/json'
        event.body = { amount: tx.amount, reference: `PRV${index}`, api_key: 'sk_live_never_shown' }
        break
      case 'provider.response':
        event.content_type = 'application/json'
        event.http_status = 200
        event.body = { status: 'SUCCESS', provider_transaction_id: `PRV${index}` }
        break
      default:
        event.body = { note: 'status reconciled', by: 'reconciler' }
    }
    events.push(event)
  }
  return events
}

/** One transaction line (an object in the §5 format) after another. */
export function* syntheticLines(options: SyntheticOptions): Generator<Record<string, unknown>> {
  const next = random(options.seed ?? 1)
  const prefix = options.prefix ?? 'ORD'
  const end = options.end ?? DateTime.utc()
  const start = end.minus({ years: 1 })
  const span = end.toMillis() - start.toMillis()
  const base = Math.floor(options.events / Math.max(options.transactions, 1))
  const remainder = options.events - base * options.transactions
  for (let index = 0; index < options.transactions; index++) {
    const createdAt = DateTime.fromMillis(
      start.toMillis() + Math.floor(((index + next()) / options.transactions) * span),
      { zone: next() < 0.7 ? 'UTC+8' : 'UTC' }
    )
    const [paymentStatus, legacyStatus] = weighted(next, STATUSES)
    const tx = {
      merchant_id: options.merchantId,
      environment: next() < 0.85 ? 'live' : 'test',
      merchant_transaction_id: referenceOf(prefix, index, next),
      amount: amountOf(next),
      currency: next() < 0.97 ? 'PHP' : 'USD',
      payment_status: paymentStatus,
      legacy_status: legacyStatus,
      payment_brand: weighted(next, BRANDS),
      archived: next() < 0.05,
      created_at: next() < 0.001 ? null : iso(createdAt),
      updated_at: iso(createdAt.plus({ seconds: 5 + Math.floor(next() * 600) })),
    }
    const count = base + (index < remainder ? 1 : 0)
    yield { ...tx, events: eventsOf(next, index, count, tx, createdAt) }
  }
}
