/*
| Logo storage (portal-api.md › Merchant and logo; decisions.md §3 DRIVE_DISK).
| - `fs` (default): files under storage/, served by this service at
|   APP_URL/media/<key> (app/controllers/merchant_logo_files_controller.ts sets the
|   content type, nosniff and the immutable cache). Drive's own file server is not
|   used: it serves any key, without those headers.
| - `s3`: any S3-compatible store (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
|   AWS_REGION, S3_BUCKET; S3_ENDPOINT and S3_FORCE_PATH_STYLE for MinIO, R2 and the
|   like). Objects are private; URLs are presigned unless S3_CDN_URL names a public
|   base URL. Every call to the store has a deadline (S3_CALL_LIMITS): a store that
|   stops answering fails an upload with 503 after about ten seconds, and a read shows
|   no logo, instead of holding the request for as long as the socket stays open.
*/
import app from '@adonisjs/core/services/app'
import { defineConfig, services } from '@adonisjs/drive'
import { FSDriver } from 'flydrive/drivers/fs'
import env from '#start/env'
import { appUrl } from '#config/app'
import { ConfigurationError } from '#start/configuration_check'

/** Where the fs disk's files are served (the route in start/routes.ts). */
export const MEDIA_ROUTE_PREFIX = '/media'

const disk = env.get('DRIVE_DISK') ?? 'fs'

/**
 * Each attempt of an S3 call: 2 s to connect, 5 s in all (a 2 MiB logo at 400 KB/s),
 * and two attempts (the SDK's default is three, without any deadline): with the
 * SDK's short backoff between them, a call fails within about 10 s.
 */
export const S3_CALL_LIMITS = {
  requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000, throwOnRequestTimeout: true },
  maxAttempts: 2,
}

/** Private S3 objects are reached through presigned URLs unless a public base URL is set. */
export const PRESIGNED_URLS = disk === 's3' && !env.get('S3_CDN_URL')

if (disk === 's3') {
  const missing = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION', 'S3_BUCKET'].filter(
    (name) => !env.get(name as any)
  )
  if (missing.length > 0) {
    throw new ConfigurationError([`DRIVE_DISK=s3 needs ${missing.join(', ')}`])
  }
}

const driveConfig = defineConfig({
  default: disk,
  services: {
    fs: () =>
      new FSDriver({
        location: app.makePath('storage'),
        visibility: 'public',
        urlBuilder: {
          async generateURL(key) {
            return `${appUrl}${MEDIA_ROUTE_PREFIX}/${key}`
          },
        },
      }),
    s3: services.s3({
      credentials: {
        accessKeyId: env.get('AWS_ACCESS_KEY_ID') ?? '',
        secretAccessKey: env.get('AWS_SECRET_ACCESS_KEY') ?? '',
      },
      region: env.get('AWS_REGION') ?? 'us-east-1',
      bucket: env.get('S3_BUCKET') ?? '',
      endpoint: env.get('S3_ENDPOINT') || undefined,
      forcePathStyle: env.get('S3_FORCE_PATH_STYLE') ?? false,
      // flydrive resolves keys with new URL(key, cdnUrl): without a trailing slash the
      // CDN URL's last path segment would be dropped (S3_CDN_URL/<key> is the contract).
      cdnUrl: env.get('S3_CDN_URL')?.replace(/\/?$/, '/') || undefined,
      visibility: 'private',
      supportsACL: false,
      ...S3_CALL_LIMITS,
    }),
  },
})

export default driveConfig

declare module '@adonisjs/drive/types' {
  export interface DriveDisks extends InferDriveDisks<typeof driveConfig> {}
}
