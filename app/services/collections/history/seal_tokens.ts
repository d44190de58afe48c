/*
| The tokens of compact seals (evidence_cipher.ts, encoding 1): text that JSON bodies
| and stored projections repeat, each written as one control byte. A plaintext holding
| a control character of its own is stored without tokens; JSON text never does
| (JSON.stringify escapes them; a body's own whitespace is the exception), so every
| such byte in a tokenized plaintext stands for its token, one lookup a byte to read.
|
| Never edit this table: every stored seal of encoding 1 needs exactly these tokens to
| open. A better table is a new constant under a new encoding number, beside this one.
| Bytes 0x09, 0x0A and 0x0D are left out (JSON's own whitespace), and 0x00.
| Why not deflate: a zlib stream set up for every seal cost 30-45 µs, ten times the
| encryption, where this costs about a microsecond (bench/results/evidence_storage_*).
*/
const TOKENS_1: ReadonlyArray<readonly [number, string]> = [
  [0x01, '{"capture_status":"available","payload":{'],
  [0x02, '{"capture_status":"'],
  [0x03, '","payload":'],
  [0x04, ',"omissions":['],
  [0x05, '{"field_path":"*","reason_code":"portal_field_allowlist"}'],
  [0x06, '{"field_path":"'],
  [0x07, '","reason_code":"'],
  [0x08, '],"delivery":null,"response":null}'],
  [0x0b, '],"delivery":{"state":"'],
  [0x0c, '"merchant_transaction_id":"'],
  [0x0e, '","amount":"'],
  [0x0f, '","currency":"'],
  [0x10, '"payment_brand":"'],
  [0x11, '","payment_status":"'],
  [0x12, ',"channel":'],
  [0x13, ',"is_card_payment":'],
  [0x14, '"success_url":"https://'],
  [0x15, '"customer":{"email":"'],
  [0x16, ',"timestamp":"'],
  [0x17, ',"response":{"is_repeated_request":'],
  [0x18, ',"capture_stage":"prepared_for_return","body_capture_status":"'],
  [0x19, 'merchant_response_field_allowlist"}'],
  [0x1a, 'payment_url_excluded"}'],
  [0x1b, '{"success":true,"data":{'],
  [0x1c, ',"body_capture_status":"'],
  [0x1d, ',"duration_ms":'],
  [0x1e, '"},"response":null}'],
  [0x1f, '"omitted'],
]

const byText = new Map(TOKENS_1.map(([byte, text]) => [text, String.fromCharCode(byte)]))
const byByte = new Map(TOKENS_1.map(([byte, text]) => [String.fromCharCode(byte), text]))
// Longest first, so a token is never cut by a shorter one it contains.
const FIND = new RegExp(
  [...byText.keys()]
    .sort((a, b) => b.length - a.length)
    .map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|'),
  'g'
)
// eslint-disable-next-line no-control-regex -- the control bytes are what this module is about
const CONTROL = /[\x00-\x1f]/
// eslint-disable-next-line no-control-regex -- the same bytes, all of them
const EVERY_CONTROL = /[\x00-\x1f]/g

/** Text with its tokens as bytes, or null when it holds a control character. */
export function withTokens(json: string): string | null {
  if (CONTROL.test(json)) return null
  return json.replace(FIND, (text) => byText.get(text)!)
}

/** The text that withTokens gave `tokenized` for. */
export function withoutTokens(tokenized: string): string {
  return tokenized.replace(EVERY_CONTROL, (byte) => byByte.get(byte) ?? byte)
}
