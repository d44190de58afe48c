/*
| The application encrypter's text-format seals, opened without the encrypter: what
| @adonisjs/core's encryption service (@boringnode/encryption's AES-256-GCM driver)
| writes is `<id>.v1:<ciphertext>.<iv>.<tag>` in base64url, sealed under HKDF-SHA256
| of the SHA-256 of APP_KEY (info `aes-256-gcm:v1:<id>`) with the purpose as additional
| data, its plaintext the JSON text of `{"message": ...}`. None of it is promised by the
| package, so the key is handed out only once it has opened what the encrypter sealed
| (textFormatKey); otherwise the caller lets the encrypter open them (slower, same
| result). No container here: the import's preparation thread opens them too.
*/
import {
  createDecipheriv,
  createHash,
  createSecretKey,
  hkdfSync,
  type KeyObject,
} from 'node:crypto'

/** The encrypter's key id (the first part of what it writes) and its AES-256-GCM key. */
export interface TextFormatKey {
  id: string
  key: KeyObject
}

/** What textFormatKey needs of the encrypter (@adonisjs/core/services/encryption). */
export interface TextFormatEncrypter {
  encrypt(value: string, expiresIn: undefined, purpose: string): string
}

const IV_BYTES = 12
const TAG_BYTES = 16

/**
 * The value a text-format seal holds; undefined when it is not one of this key's or
 * does not open under `purpose`. Throws on a forged tag or a malformed plaintext.
 */
export function openTextFormat(key: TextFormatKey, sealed: string, purpose: string): unknown {
  const parts = sealed.split('.')
  if (parts.length !== 4 || parts[0] !== key.id || !parts[1].startsWith('v1:')) return undefined
  const iv = Buffer.from(parts[2], 'base64url')
  const tag = Buffer.from(parts[3], 'base64url')
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) return undefined
  const decipher = createDecipheriv('aes-256-gcm', key.key, iv, { authTagLength: TAG_BYTES })
  decipher.setAAD(Buffer.from(purpose), { plaintextLength: Buffer.byteLength(purpose) })
  decipher.setAuthTag(tag)
  const plain = Buffer.concat([
    decipher.update(Buffer.from(parts[1].slice(3), 'base64url')),
    decipher.final(),
  ])
  const payload = JSON.parse(plain.toString('utf8'))
  // A seal with an expiry is refused: its expiry is not checked here.
  return payload !== null && typeof payload === 'object' && !('expiryDate' in payload)
    ? payload.message
    : undefined
}

/**
 * The encrypter's key, derived as the encrypter derives it, once it has opened what
 * the encrypter sealed (text needing escapes included); null otherwise.
 */
export function textFormatKey(
  appKey: string,
  encrypter: TextFormatEncrypter
): TextFormatKey | null {
  try {
    const id = encrypter.encrypt('probe', undefined, 'probe').split('.')[0]
    const derived = hkdfSync(
      'sha256',
      createHash('sha256').update(appKey).digest(),
      Buffer.alloc(0),
      Buffer.from(`aes-256-gcm:v1:${id}`),
      32
    )
    const candidate = { id, key: createSecretKey(Buffer.from(derived)) }
    const probe = 'tprobe \u2028 "quoted" \\ é'
    const purpose = 'text-format-probe'
    const sealed = encrypter.encrypt(probe, undefined, purpose)
    return openTextFormat(candidate, sealed, purpose) === probe ? candidate : null
  } catch {
    return null
  }
}
