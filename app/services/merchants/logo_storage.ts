/*
| Where logos live (portal-api.md › Merchant and logo): the drive disk chosen by
| DRIVE_DISK (config/drive.ts), under a per-merchant prefix with a name the server
| generates; the client's filename never reaches a key. A new upload gets a new name,
| which is what lets the fs route serve logos with an immutable cache.
*/
import { ulid } from 'ulid'
import drive from '@adonisjs/drive/services/main'
import logger from '@adonisjs/core/services/logger'
import {
  LOGO_FORMATS,
  logoFileBuffers,
  type LogoFormat,
  type NormalizedLogo,
} from '#services/merchants/logo_image'

export const LOGO_CACHE_CONTROL = 'public, max-age=31536000, immutable'

/** Presigned S3 URLs (no S3_CDN_URL) stay valid this long. */
const SIGNED_URL_LIFETIME = '1h'

/** `logos/<merchant id>/<26-char lowercase ULID>.<png|jpg|webp>` */
const LOGO_KEY = /^logos\/([1-9][0-9]{0,19})\/[0-9a-z]{26}\.(png|jpg|webp)$/

export function newLogoKey(merchantId: number, format: LogoFormat) {
  return `logos/${merchantId}/${ulid().toLowerCase()}.${LOGO_FORMATS[format].extension}`
}

/** The content type a stored key is served with, or null for a key that is not a logo's. */
export function contentTypeOfKey(key: string): string | null {
  const match = LOGO_KEY.exec(key)
  if (!match) return null
  const format = (Object.keys(LOGO_FORMATS) as LogoFormat[]).find(
    (name) => LOGO_FORMATS[name].extension === match[2]
  )!
  return LOGO_FORMATS[format].contentType
}

export function logoDisk() {
  return drive.use()
}

/** Writes a logo object (S3 gets its content type and cache header with it). */
export async function writeLogo(key: string, logo: NormalizedLogo) {
  await logoFileBuffers.withBytes(logo, (bytes) =>
    logoDisk().put(key, bytes, {
      contentType: LOGO_FORMATS[logo.format].contentType,
      cacheControl: LOGO_CACHE_CONTROL,
    })
  )
}

/** Removes a logo object; a failure leaves an orphan to log, never a failed request. */
export async function removeLogo(key: string) {
  try {
    await logoDisk().delete(key)
  } catch (error) {
    logger.warn({ key, err: { name: (error as Error)?.name } }, 'logo object not removed')
  }
}

/** The absolute URL of a stored logo: served by this service (fs), CDN or presigned (s3). */
export async function urlOfLogo(key: string): Promise<string> {
  const disk = logoDisk()
  // Read when needed, not at import: operator commands import this module before the
  // application boots, and loading config/drive.ts (which reads config/app.ts) that
  // early would freeze an APP_KEY the runtime has not set yet.
  const { PRESIGNED_URLS } = await import('#config/drive')
  return PRESIGNED_URLS
    ? disk.getSignedUrl(key, { expiresIn: SIGNED_URL_LIFETIME })
    : disk.getUrl(key)
}

/**
 * The URL of a merchant's logo, or null when there is none or the stored object is
 * missing, unreadable, or not a logo of this merchant.
 */
export async function currentLogoUrl(merchantId: number, key: string | null) {
  const match = key ? LOGO_KEY.exec(key) : null
  if (!key || !match || match[1] !== String(merchantId)) return null
  try {
    return (await logoDisk().exists(key)) ? await urlOfLogo(key) : null
  } catch (error) {
    logger.warn({ key, err: { name: (error as Error)?.name } }, 'logo object unreadable')
    return null
  }
}
