/*
| The demo merchant's year of transactions as plain values: an online
| shop in the Philippines whose charts look like one. demo_collections.ts turns them
| into import lines with evidence. Seeded, with no Math.random: the same `end` gives
| the same rows.
| - About 800 transactions from `end` minus one year to `end`, drawn day by day in
|   Asia/Manila: more on weekends, on paydays (the 15th and the last day of the month)
|   and the two days after them, on double-date sales (9.9, 11.11, 12.12...) and
|   towards Christmas; quiet between midnight and six in the morning.
| - Amounts log-normal, so many small and a few large: e-wallet baskets around ₱400,
|   card payments around ₱1,100, often whole pesos.
| - A brand mix that moves over the year (Maya and ShopeePay grow, GrabPay fades),
|   success rates by brand (e-wallets above cards) that move from month to month, and
|   one bad month for Mastercard.
| - The test environment: developers during office hours, with more declines.
| - The oldest eight weeks came from the previous system, which recorded legacy codes
|   (S, R, P, X) and left more checkouts pending; later, one integration sends a
|   lowercase `paid` now and then.
| - Two rows a newcomer can look for: a developer's test session of penny payments
|   whose sums expose binary floating point (0.10 + 0.20, 33.33 three times, 0.01),
|   and the oldest pending checkout, which has no amount.
*/
import { DateTime } from 'luxon'
import type { Environment, TransactionStatus } from '#models/collections_vocabulary'

/**
 * Asia/Manila, which has kept UTC+8 all year since 1978: as a fixed offset, luxon's
 * arithmetic on it costs no time-zone lookups.
 */
const MANILA = 'UTC+8'

const SEED = 0x2026_0522

/** The expected size of the year; the drawn count varies a little around it. */
const EXPECTED_TRANSACTIONS = 800

const LEGACY_WEEKS = 8

export type DemoBrand = 'gcash' | 'maya' | 'grabpay' | 'shopeepay' | 'card_visa' | 'card_mastercard'

interface BrandProfile {
  /** Share of transactions at the start and at the end of the year. */
  share: [number, number]
  /** Live success rate in an ordinary month. */
  success: number
  /** Median amount in pesos. */
  median: number
}

const BRANDS: Record<DemoBrand, BrandProfile> = {
  gcash: { share: [0.44, 0.36], success: 0.88, median: 420 },
  maya: { share: [0.1, 0.21], success: 0.85, median: 450 },
  grabpay: { share: [0.13, 0.05], success: 0.82, median: 380 },
  shopeepay: { share: [0.08, 0.13], success: 0.84, median: 350 },
  card_visa: { share: [0.15, 0.16], success: 0.74, median: 1_150 },
  card_mastercard: { share: [0.1, 0.09], success: 0.7, median: 1_100 },
}
const BRAND_NAMES = Object.keys(BRANDS) as DemoBrand[]

/** Mastercard's bad month (counted from the first month of the year) and its drop. */
const INCIDENT = { brand: 'card_mastercard' as DemoBrand, month: 7, drop: 0.22 }

/** Relative traffic by hour of the day in Manila, 00:00 to 23:00: evenings peak. */
const HOURLY = [
  0.25, 0.12, 0.07, 0.05, 0.05, 0.1, 0.3, 0.55, 0.8, 0.95, 1.0, 1.05, 1.2, 1.0, 0.95, 0.95, 1.0,
  1.05, 1.15, 1.35, 1.45, 1.35, 1.0, 0.6,
]
/** Monday to Sunday. */
const WEEKDAY = [0.9, 0.88, 0.92, 0.95, 1.05, 1.3, 1.22]
/** January to December: the long Philippine Christmas season lifts the last months. */
const MONTHLY = [0.92, 0.9, 0.95, 0.9, 0.95, 1.0, 0.95, 0.95, 1.02, 1.06, 1.15, 1.35]
/** On a payday, the day after and the day after that. */
const PAYDAY_LIFT = [2.0, 1.4, 1.15]
const DOUBLE_DATE_SALE_LIFT = 1.8
/** Double-date sales are ShopeePay's campaigns. */
const DOUBLE_DATE_SALE_SHOPEEPAY_LIFT = 2.5

/** Amounts that test exact money: sums of these are wrong in binary floating point. */
export const PENNY_AMOUNTS = [
  '0.10',
  '0.20',
  '0.30',
  '33.33',
  '33.33',
  '33.33',
  '0.01',
  '19.99',
  '1.15',
]

/** Live amounts stay between ₱1.00 and this (the contract allows 12 integer digits). */
const MAX_AMOUNT_PESOS = 250_000

export interface DemoTransaction {
  createdAt: DateTime
  updatedAt: DateTime
  environment: Environment
  paymentBrand: DemoBrand
  /** The normalized status (collections_vocabulary.ts) of what is recorded below. */
  status: TransactionStatus
  paymentStatus: string | null
  legacyStatus: string | null
  amount: string | null
  archived: boolean
}

type Random = () => number

/** Floats in [0, 1) from a 32-bit seed: a Weyl sequence through an integer mixer. */
function seededRandom(seed: number): Random {
  let state = seed >>> 0
  return () => {
    state = (state + 0x9e3779b9) >>> 0
    let mixed = state
    mixed = Math.imul(mixed ^ (mixed >>> 16), 0x21f0aaad)
    mixed = Math.imul(mixed ^ (mixed >>> 15), 0x735a2d97)
    mixed ^= mixed >>> 15
    return (mixed >>> 0) / 4_294_967_296
  }
}

function pickIndex(random: Random, weights: number[]) {
  let draw = random() * weights.reduce((sum, weight) => sum + weight, 0)
  for (const [index, weight] of weights.entries()) {
    draw -= weight
    if (draw < 0) return index
  }
  return weights.length - 1
}

function poisson(random: Random, mean: number) {
  const limit = Math.exp(-mean)
  let count = 0
  for (let product = random(); product > limit; product *= random()) count++
  return count
}

function logNormal(random: Random, median: number, sigma: number) {
  const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  return median * Math.exp(sigma * normal)
}

function formatCents(cents: number) {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`
}

/** 0 on a payday, 1 and 2 on the two days after it, undefined on other days. */
function daysSincePayday(day: DateTime) {
  if (day.day === day.daysInMonth) return 0
  if (day.day >= 15 && day.day <= 17) return day.day - 15
  if (day.day <= 2) return day.day // the previous month's last day was a payday
  return undefined
}

function dayWeight(day: DateTime) {
  let weight = WEEKDAY[day.weekday - 1] * MONTHLY[day.month - 1]
  const sincePayday = daysSincePayday(day)
  if (sincePayday !== undefined) weight *= PAYDAY_LIFT[sincePayday]
  if (day.day === day.month) weight *= DOUBLE_DATE_SALE_LIFT
  return weight
}

/** Live success rate of each brand in each month of the year (index 0: the first month). */
function monthlySuccessRates(random: Random, months: number) {
  const rates = {} as Record<DemoBrand, number[]>
  for (const brand of BRAND_NAMES) {
    rates[brand] = Array.from({ length: months }, (_, month) => {
      const drift = random() * 0.12 - 0.07
      const incident = brand === INCIDENT.brand && month === INCIDENT.month ? INCIDENT.drop : 0
      return Math.min(0.97, Math.max(0.3, BRANDS[brand].success + drift - incident))
    })
  }
  return rates
}

function liveStatus(random: Random, successRate: number, pendingShare: number) {
  const draw = random()
  if (draw < pendingShare) return 'PENDING' // left at the payment page
  return draw < pendingShare + (1 - pendingShare) * successRate ? 'PAID' : 'REJECTED'
}

function testStatus(random: Random): TransactionStatus {
  const draw = random()
  if (draw < 0.6) return 'PAID'
  return draw < 0.85 ? 'REJECTED' : 'PENDING'
}

/** How the previous system recorded each status, in turn (every form shows up). */
const LEGACY_FORMS: Record<TransactionStatus, Array<[string | null, string]>> = {
  PAID: [
    [null, 'S'],
    [null, 'S'],
    ['PAID', 'S'],
  ],
  REJECTED: [
    [null, 'R'],
    ['REJECTED', 'R'],
  ],
  PENDING: [
    [null, 'P'],
    ['EXPIRED', 'X'],
  ],
}

/** [payment_status, legacy_status] as recorded: the previous system's codes, then ours. */
function recorder(random: Random) {
  const turns: Record<TransactionStatus, number> = { PAID: 0, REJECTED: 0, PENDING: 0 }
  return (status: TransactionStatus, legacy: boolean): [string | null, string | null] => {
    if (legacy) {
      const forms = LEGACY_FORMS[status]
      return forms[turns[status]++ % forms.length]
    }
    if (status === 'PAID' && random() < 0.03) return ['paid', null]
    return [status, null]
  }
}

function liveAmount(random: Random, brand: DemoBrand, month: number) {
  const season = month >= 11 ? 1.15 : 1 // Christmas baskets
  const pesos = Math.min(MAX_AMOUNT_PESOS, logNormal(random, BRANDS[brand].median * season, 1))
  const cents = random() < 0.4 ? Math.round(pesos) * 100 : Math.round(pesos * 100)
  return formatCents(Math.max(100, cents))
}

function testAmount(random: Random) {
  return formatCents(Math.max(1, Math.round(logNormal(random, 100, 1.2))) * 100)
}

interface DemoYear {
  first: number
  last: number
  legacyUntil: number
  firstMonth: DateTime
  rates: Record<DemoBrand, number[]>
  recorded: ReturnType<typeof recorder>
}

function brandAt(random: Random, year: DemoYear, createdAt: DateTime) {
  const progress = (createdAt.toMillis() - year.first) / (year.last - year.first)
  const sale = createdAt.day === createdAt.month
  const weights = BRAND_NAMES.map((brand) => {
    const [from, to] = BRANDS[brand].share
    const lift = sale && brand === 'shopeepay' ? DOUBLE_DATE_SALE_SHOPEEPAY_LIFT : 1
    return (from + (to - from) * progress) * lift
  })
  return BRAND_NAMES[pickIndex(random, weights)]
}

function drawTransaction(random: Random, year: DemoYear, time: number): DemoTransaction {
  const createdAt = DateTime.fromMillis(time, { zone: MANILA })
  const paymentBrand = brandAt(random, year, createdAt)
  const officeHours = createdAt.weekday <= 5 && createdAt.hour >= 9 && createdAt.hour < 18
  const environment = random() < (officeHours ? 0.2 : 0.04) ? 'test' : 'live'
  const month =
    (createdAt.year - year.firstMonth.year) * 12 + createdAt.month - year.firstMonth.month
  const legacy = time < year.legacyUntil
  const status =
    environment === 'live'
      ? liveStatus(random, year.rates[paymentBrand][month], legacy ? 0.12 : 0.05)
      : testStatus(random)
  const [paymentStatus, legacyStatus] = year.recorded(status, legacy)
  const amount =
    environment === 'live' ? liveAmount(random, paymentBrand, createdAt.month) : testAmount(random)
  const updated = Math.min(time + Math.floor((40 + random() * 1_500) * 1_000), year.last)
  return {
    createdAt,
    updatedAt: DateTime.fromMillis(updated, { zone: MANILA }),
    environment,
    paymentBrand,
    status,
    paymentStatus,
    legacyStatus,
    amount,
    archived: random() < 0.03,
  }
}

/** A developer's test session on a Wednesday afternoon: the penny payments. */
function pennySession(after: DateTime): DemoTransaction[] {
  const start = after.set({ weekday: 3, hour: 14, minute: 5, second: 0, millisecond: 0 })
  return PENNY_AMOUNTS.map((amount, index) => {
    const createdAt = start.plus({ minutes: 4 * index, seconds: 7 * index })
    return {
      createdAt,
      updatedAt: createdAt.plus({ seconds: 50 }),
      environment: 'test',
      paymentBrand: 'gcash',
      status: 'PAID',
      paymentStatus: 'PAID',
      legacyStatus: null,
      amount,
      archived: false,
    }
  })
}

/** The demo year, oldest first, ending at `end`. */
export function demoTransactions(end: DateTime = DateTime.utc()): DemoTransaction[] {
  const random = seededRandom(SEED)
  const last = end.setZone(MANILA)
  const first = last.minus({ years: 1 })
  const legacyUntil = first.plus({ weeks: LEGACY_WEEKS })
  const year: DemoYear = {
    first: first.toMillis(),
    last: last.toMillis(),
    legacyUntil: legacyUntil.toMillis(),
    firstMonth: first.startOf('month'),
    rates: monthlySuccessRates(random, 13),
    recorded: recorder(random),
  }

  const days: DateTime[] = []
  for (let day = first.startOf('day'); day <= last; day = day.plus({ days: 1 })) days.push(day)
  const weights = days.map(dayWeight)
  const perWeight = EXPECTED_TRANSACTIONS / weights.reduce((sum, weight) => sum + weight, 0)

  const transactions: DemoTransaction[] = []
  for (const [index, day] of days.entries()) {
    const times: number[] = []
    const count = poisson(random, weights[index] * perWeight)
    for (let drawn = 0; drawn < count; drawn++) {
      const hours = pickIndex(random, HOURLY) + random()
      times.push(day.toMillis() + Math.floor(hours * 3_600_000))
    }
    times.sort((a, b) => a - b)
    for (const time of times) {
      if (time >= year.first && time <= year.last) {
        transactions.push(drawTransaction(random, year, time))
      }
    }
  }

  const oldestPending = transactions.find((transaction) => transaction.status === 'PENDING')
  if (oldestPending) oldestPending.amount = null

  return [...transactions, ...pennySession(legacyUntil.plus({ weeks: 3 }))].sort(
    (a, b) => a.createdAt.toMillis() - b.createdAt.toMillis()
  )
}
