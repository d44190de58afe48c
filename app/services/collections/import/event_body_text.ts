/*
| The exact text of each event's `body` in an import line (decisions.md §5: "the body
| is stored as the evidence snapshot exactly as given"). JSON.parse then
| JSON.stringify would not give it back: big integers lose digits, `1e400` becomes
| null, `1.10` becomes 1.1, duplicate keys merge, and a body nested thousands deep
| overflows the stack. So the line's own characters are kept: a scan of the text
| JSON.parse has already accepted, without recursion, finds the value of the last
| `events` key of the line and, in each of its elements, the value of the last `body`
| key (the members JSON.parse keeps when a key repeats).
*/

const WHITESPACE = new Set([' ', '\t', '\n', '\r'])

function skipWhitespace(text: string, index: number): number {
  while (index < text.length && WHITESPACE.has(text[index])) index++
  return index
}

/** The index after the string that opens at `index` (a `"`). */
function skipString(text: string, index: number): number {
  for (;;) {
    index = text.indexOf('"', index + 1)
    // A quote closes the string unless an odd run of backslashes escapes it.
    let backslashes = 0
    while (text[index - 1 - backslashes] === '\\') backslashes++
    if (backslashes % 2 === 0) return index + 1
  }
}

const STRUCTURE = /["{}[\]]/g

/** The index after the value that starts at `index`; containers are walked by depth. */
function skipValue(text: string, index: number): number {
  const first = text[index]
  if (first === '"') return skipString(text, index)
  if (first !== '{' && first !== '[') {
    while (index < text.length && !',}]'.includes(text[index]) && !WHITESPACE.has(text[index])) {
      index++
    }
    return index
  }
  // Jumps from one quote or bracket to the next; strings are skipped whole.
  let depth = 0
  do {
    STRUCTURE.lastIndex = index
    index = STRUCTURE.exec(text)!.index
    const character = text[index]
    if (character === '"') {
      index = skipString(text, index)
      continue
    }
    depth += character === '{' || character === '[' ? 1 : -1
    index++
  } while (depth > 0)
  return index
}

interface Span {
  start: number
  end: number
}

/** The members of the object that opens at `index`, by decoded key (the last one wins). */
function members(text: string, index: number): Map<string, Span> {
  const found = new Map<string, Span>()
  index = skipWhitespace(text, index + 1)
  while (text[index] !== '}') {
    const keyEnd = skipString(text, index)
    const written = text.slice(index + 1, keyEnd - 1)
    const key = written.includes('\\') ? (JSON.parse(`"${written}"`) as string) : written
    const start = skipWhitespace(text, skipWhitespace(text, keyEnd) + 1)
    const end = skipValue(text, start)
    found.set(key, { start, end })
    index = skipWhitespace(text, end)
    if (text[index] === ',') index = skipWhitespace(text, index + 1)
  }
  return found
}

/** The elements of the array that opens at `index`. */
function elements(text: string, index: number): Span[] {
  const found: Span[] = []
  index = skipWhitespace(text, index + 1)
  while (text[index] !== ']') {
    const end = skipValue(text, index)
    found.push({ start: index, end })
    index = skipWhitespace(text, end)
    if (text[index] === ',') index = skipWhitespace(text, index + 1)
  }
  return found
}

/**
 * For a line JSON.parse accepted as the object `parsed`, the text of `events[i].body`
 * for each event i that is an object with a `body`; undefined for the others. A line
 * already in JSON.stringify's own form (what exporters and the bench write) gives the
 * same texts from its parsed values, faster than the scan.
 */
export function eventBodyTextsOf(line: string, parsed: unknown): Array<string | undefined> {
  try {
    if (JSON.stringify(parsed) === line) {
      const events = (parsed as { events?: unknown }).events
      if (!Array.isArray(events)) return []
      return events.map((event) =>
        event !== null && typeof event === 'object' && Object.hasOwn(event, 'body')
          ? JSON.stringify((event as { body: unknown }).body)
          : undefined
      )
    }
  } catch {
    // Nested past the serializer's stack: the scan below has no such limit.
  }
  return eventBodyTexts(line)
}

/** The same texts, always by scanning the line (see eventBodyTextsOf). */
export function eventBodyTexts(line: string): Array<string | undefined> {
  const events = members(line, skipWhitespace(line, 0)).get('events')
  if (!events || line[events.start] !== '[') return []
  return elements(line, events.start).map((event) => {
    if (line[event.start] !== '{') return undefined
    const body = members(line, event.start).get('body')
    return body ? line.slice(body.start, body.end) : undefined
  })
}
