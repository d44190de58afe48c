/*
| The reporting time zones (portal-api.md › Chart; decisions.md §2): which names are
| accepted, and a zone's offset at an instant, read from the runtime's tz data.
*/
import { IANAZone } from 'luxon'
import { IANA_ZONE_NAMES } from '#support/iana_zones'

/*
| IANA names only: the zones and links of the tz database (app/support/iana_zones.ts,
| generated from tzdata: `backward` links such as US/Eastern, Asia/Calcutta, EST,
| EST5EDT, Etc/GMT+8, UTC, GMT included), and among them those the runtime's tz data
| (ICU, through luxon) can compute: `Factory` is IANA but unknown to ICU. Matched
| case-insensitively as the tz database specifies. ICU alone would also accept its own
| names outside the database (BST for Asia/Dhaka, AST for Alaska, SystemV/EST5, names
| tzdata dropped such as US/Pacific-New) and numeric offsets (`+08:00`): all refused.
| The shape check first, so that garbage costs no lookup.
*/
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/

const IANA_NAMES = new Set(IANA_ZONE_NAMES.map((name) => name.toLowerCase()))

/*
| Verdicts by name: luxon's isValidZone builds an Intl formatter per call, on every
| reporting request. Bounded like the offset formatters below, since the names are
| the client's.
*/
const zoneVerdicts = new Map<string, boolean>()

export function isIanaTimezone(name: string): boolean {
  if (name.length > 64 || !ZONE_NAME.test(name)) return false
  let valid = zoneVerdicts.get(name)
  if (valid === undefined) {
    valid = IANA_NAMES.has(name.toLowerCase()) && IANAZone.isValidZone(name)
    if (zoneVerdicts.size > 1000) zoneVerdicts.clear()
    zoneVerdicts.set(name, valid)
  }
  return valid
}

/*
| Zone offsets, read from the runtime's tz data (the same ICU data luxon uses) through
| one formatter per zone: `longOffset` gives the offset with its seconds
| (`GMT+08:03:52` before standard time) and costs a fraction of luxon's
| formatToParts, which matters at three calls per bucket boundary.
*/
const LONG_OFFSET = /GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/

/*
| Offsets already read, per zone and instant. The tz data does not change while the
| process runs, and requests share instants: every chart of a zone reads the same
| period starts (and the same probes around them), whatever its range or merchant, so
| after the first chart of a month or a day the lookups are map reads (about 700 per
| daily chart). Bounded: past OFFSET_CACHE_LIMIT entries in all, the cache starts
| over.
*/
interface ZoneOffsets {
  formatter: Intl.DateTimeFormat
  byInstant: Map<number, number>
}
const zones = new Map<string, ZoneOffsets>()
const OFFSET_CACHE_LIMIT = 200_000
let cachedOffsets = 0

function zoneOffsetsOf(zoneName: string): ZoneOffsets {
  let zone = zones.get(zoneName)
  if (!zone) {
    if (zones.size >= 1000) {
      zones.clear()
      cachedOffsets = 0
    }
    zone = {
      formatter: new Intl.DateTimeFormat('en-US', {
        timeZone: zoneName,
        timeZoneName: 'longOffset',
      }),
      byInstant: new Map(),
    }
    zones.set(zoneName, zone)
  }
  return zone
}

/** Offset of `zoneName` at epoch `ms`, in milliseconds. */
export function zoneOffsetMs(zoneName: string, ms: number): number {
  const zone = zoneOffsetsOf(zoneName)
  const known = zone.byInstant.get(ms)
  if (known !== undefined) return known
  const offset = readOffset(zone.formatter, zoneName, ms)
  if (cachedOffsets >= OFFSET_CACHE_LIMIT) {
    for (const other of zones.values()) other.byInstant.clear()
    cachedOffsets = 0
  }
  zone.byInstant.set(ms, offset)
  cachedOffsets++
  return offset
}

function readOffset(formatter: Intl.DateTimeFormat, zoneName: string, ms: number): number {
  const match = LONG_OFFSET.exec(formatter.format(ms))
  if (!match) throw new Error(`unreadable offset of ${zoneName}`)
  if (!match[1]) return 0
  const magnitude = (Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4] ?? 0)) * 1000
  return match[1] === '-' ? -magnitude : magnitude
}
