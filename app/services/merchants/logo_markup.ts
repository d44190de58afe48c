/*
| Markup a browser or interpreter would act on, found in an upload's raw bytes: `<`
| followed by script, html, body, iframe, object, embed or svg and then whitespace, `>`
| or `/`; `<?php`; or `<!doctype`, letters in any case. Long enough that compressed
| pixel data matches by chance with negligible probability.
|
| The bytes are scanned where they are: a latin1 string copy of an upload (up to 2 MiB
| each) went to V8's old space and made the server's major collections, and their
| pauses, more frequent under upload load.
*/
const TAGS = ['script', 'html', 'body', 'iframe', 'object', 'embed', 'svg'].map((tag) =>
  Buffer.from(tag)
)
const PHP = Buffer.from('?php')
const DOCTYPE = Buffer.from('!doctype')
const LESS_THAN = 0x3c

/** Whitespace as a regular expression's `\s` reads a latin1 byte, `>` and `/`. */
function endsTag(byte: number | undefined) {
  return (
    byte !== undefined &&
    ((byte >= 0x09 && byte <= 0x0d) ||
      byte === 0x20 ||
      byte === 0xa0 ||
      byte === 0x3e ||
      byte === 0x2f)
  )
}

/**
 * `word` (lowercase ASCII) at `offset`, ASCII letters of `bytes` compared in any case.
 * Index loops, no iterators: this runs at every `<` of an upload (thousands of times
 * in compressed pixels) and must not allocate.
 */
function startsWithFolded(bytes: Buffer, offset: number, word: Buffer) {
  const end = offset + word.length
  if (end > bytes.length) return false
  for (let at = offset; at < end; at++) {
    const byte = bytes[at]
    const folded = byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte
    if (folded !== word[at - offset]) return false
  }
  return true
}

export function carriesMarkup(bytes: Buffer): boolean {
  for (let at = bytes.indexOf(LESS_THAN); at !== -1; at = bytes.indexOf(LESS_THAN, at + 1)) {
    const next = at + 1
    if (startsWithFolded(bytes, next, PHP) || startsWithFolded(bytes, next, DOCTYPE)) return true
    for (let tag = 0, count = TAGS.length; tag < count; tag++) {
      const name = TAGS[tag]
      if (startsWithFolded(bytes, next, name) && endsTag(bytes[next + name.length])) return true
    }
  }
  return false
}
