/*
| Regenerates app/support/iana_zones.ts, the allowlist of reporting time-zone names
| (docs/reporting.md › Time zones), from the IANA tz database as compiled by the
| system's tzdata package: every zone (`Z name ...`) and link (`L target name`) of
| tzdata.zi, the `backward` links included. The service never reads system files: the
| generated module is committed.
|
| Usage (from the repository root):
|   node --import=@poppinss/ts-exec scripts/generate_iana_zones.ts [path/to/tzdata.zi]
| (default /usr/share/zoneinfo/tzdata.zi, Debian's `tzdata` package), then review the
| diff, run the calendar unit tests, and commit.
*/
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const source = process.argv[2] ?? '/usr/share/zoneinfo/tzdata.zi'
const target = fileURLToPath(new URL('../app/support/iana_zones.ts', import.meta.url))

const lines = readFileSync(source, 'utf8').split('\n')
const version = /^# version (\d{4}[a-z])$/.exec(lines[0])?.[1]
if (!version) throw new Error(`${source}: first line is not "# version YYYYx"`)

const names = new Set<string>()
for (const line of lines) {
  const fields = line.split(/\s+/)
  if (fields[0] === 'Z') names.add(fields[1])
  else if (fields[0] === 'L') names.add(fields[2])
}
if (names.size < 400) throw new Error(`${source}: only ${names.size} names, not a full tzdata.zi`)
const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))

writeFileSync(
  target,
  [
    '/*',
    '| The IANA tz database names, zones and links (`backward` included), that a reporting',
    '| timezone may be (docs/reporting.md › Time zones). Generated, do not edit: run',
    '|   node --import=@poppinss/ts-exec scripts/generate_iana_zones.ts',
    `| Source: tzdata.zi of tzdata ${version}, ${sorted.length} names.`,
    '*/',
    '',
    `export const IANA_TZDATA_VERSION = '${version}'`,
    '',
    'export const IANA_ZONE_NAMES: readonly string[] = [',
    ...sorted.map((name) => `  '${name}',`),
    ']',
    '',
  ].join('\n')
)
console.log(`${target}: tzdata ${version}, ${sorted.length} names`)
