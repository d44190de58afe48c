/*
| portal-api.md › Merchant and logo: "a real PNG, JPEG or WebP image, max 2,048 KB",
| decided by content, never by the client's filename or declared type:
| 1. the magic bytes (file-type) name PNG (an animated one too), JPEG or WebP;
| 2. the container ends exactly where the file ends, and no markup (HTML, SVG, PHP)
|    rides along: polyglots and truncated uploads are refused;
| 3. the header's dimensions are within the bounds (logo_bounds.ts: each side, the
|    aspect ratio), so what would take long to decode is refused before it is;
| 4. the pixels are checked, decoded and re-encoded without metadata, within the
|    upload cap (logo_encoder.ts).
| Every refusal is a 422 on `file`.
|
| Step 4 is the costly one (seconds of CPU for a large image), so it runs in the
| logo_image lane (docs/operations.md), so one upload cannot slow other requests:
| - at most LOGO_IMAGE_CONCURRENCY images (default 1) at once per server process, each
|   in a child process of its own (app/platform/child_workers.ts), so image work never
|   takes the threads password hashing needs, and runs at a lower CPU priority;
| - one deadline, LOGO_IMAGE_DEADLINE_SECONDS (default 20), for all of an image's work
|   in the child: past it the child is killed and replaced, and the upload is 503 with
|   Retry-After;
| - the others wait, at most LOGO_IMAGE_QUEUE of them (default 4) and at most
|   MAX_PER_MERCHANT per merchant (running or waiting); a freed place goes first to the
|   merchant whose last image started longest ago, so one merchant's second image does
|   not hold another's first behind both (WorkLane);
| - a merchant's images take at most LOGO_IMAGE_SECONDS_PER_MINUTE (default 15) of the
|   lane's time a minute: within the places, one merchant's stream of the costliest
|   images (about 4 s each) kept the encoder busy all the time, and other merchants'
|   uploads queued behind it (bench/README.md › noisy_neighbour); a logo now and then,
|   even the costliest, never meets it. An image counts at its expected time (from its
|   pixels) from its admission, at its real time once done;
| - beyond that, 503 SERVICE_UNAVAILABLE with Retry-After, at once: checked before the
|   body is read (refuseWhileLaneFull), and again when the checked image asks for its
|   place.
*/
import { join, dirname } from 'node:path'
import { fileTypeFromBuffer } from 'file-type'
import { Settings } from 'luxon'
import logger from '@adonisjs/core/services/logger'
import settings from '#config/settings'
import ApiError from '#exceptions/api_error'
import { ChildWorkers, ChildWorkerExited, ChildWorkerTimedOut } from '#platform/child_workers'
import { ReusedFileBuffers, type FileOnDisk } from '#support/file_bytes'
import { WorkLane } from '#platform/work_lane'
import { LaneFullError } from '#platform/lane_refusal'
import { carriesMarkup } from '#services/merchants/logo_markup'
import { headerPixelSize, type PixelSize } from '#services/merchants/logo_header'
import {
  dimensionsRefusal,
  LOGO_MAX_BYTES,
  type EncodeOutcome,
  type EncodeRequest,
  type LogoFormat,
} from '#services/merchants/logo_bounds'

export { LOGO_MAX_BYTES, LOGO_MAX_PIXELS, type LogoFormat } from '#services/merchants/logo_bounds'

export const LOGO_FORMATS: Record<LogoFormat, { extension: string; contentType: string }> = {
  png: { extension: 'png', contentType: 'image/png' },
  jpeg: { extension: 'jpg', contentType: 'image/jpeg' },
  webp: { extension: 'webp', contentType: 'image/webp' },
}

const FORMAT_OF_MIME: Record<string, LogoFormat> = {
  'image/png': 'png',
  // An animated PNG is a PNG (its default image is the first frame), as a WebP is
  // whether animated or not: the encoder keeps that frame only.
  'image/apng': 'png',
  'image/jpeg': 'jpeg',
  'image/webp': 'webp',
}

/** A merchant's logo is one image: two at a time cover a retry; more only fill the queue. */
const MAX_PER_MERCHANT = 2

/**
 * An image's work in the lane: one unit for what every image costs (the round trip to
 * the encoder, its files), and one per 64 Ki pixels, which the decoding and encoding
 * take in proportion to. The costliest image, 4096 x 4096 (257 units), took about 5 s
 * of one core (issue 38): the lane starts from that and learns from the images it runs.
 */
const workOf = ({ width, height }: PixelSize) => 1 + (width * height) / 65_536
const SECONDS_PER_WORK = 5 / 257

/**
 * An image whose client has gone while the encoder works on it gets this much more
 * time, then its encoder is killed and replaced: most images end within it (no
 * restart), and a costly one stops holding a place for nobody. A new encoder took
 * 170-200 ms from its start to its first answer on an idle 2-core machine.
 */
const GRACE_AFTER_CLIENT_LEFT_MS = 1000

/** The re-encoded copy to store: a file beside the upload's. */
export interface NormalizedLogo extends FileOnDisk {
  format: LogoFormat
  width: number
  height: number
}

/**
 * Where an upload's bytes are read for the checks below and a logo's to be stored:
 * two uploads at once keep their buffers (the lane admits two per merchant).
 */
export const logoFileBuffers = new ReusedFileBuffers(LOGO_MAX_BYTES, 2)

const refuse = (message: string) => ApiError.field('file', message)
const UNDECODABLE = 'The image could not be decoded.'

let lane: { images: WorkLane; encoders: ChildWorkers<EncodeRequest, EncodeOutcome> } | undefined

/** The process's logo_image lane and its encoder processes, made on first use. */
export function logoImageLane() {
  if (!lane) {
    const concurrency = settings.logoImageConcurrency()
    lane = {
      images: new WorkLane({
        name: 'logo_image',
        concurrency,
        maxQueued: settings.logoImageQueue(),
        maxPerKey: MAX_PER_MERCHANT,
        secondsPerKeyPerMinute: settings.logoImageSecondsPerMinute(),
        secondsPerWork: SECONDS_PER_WORK,
        // With the image's own deadline (20 s), an upload is answered within a minute.
        maxWaitMs: 40_000,
        // The app's clock, which tests control.
        now: () => Settings.now(),
      }),
      encoders: new ChildWorkers(import.meta.url, './logo_encoder_process', concurrency),
    }
  }
  return lane
}

const laneFull = (error: LaneFullError) =>
  ApiError.shed(
    error.reason === 'key_budget'
      ? "This merchant's recent images took their share of processing time. Try again later."
      : 'Too many images are being processed. Try again later.',
    error.retryAfterSeconds
  )

/**
 * Refuses an upload of `merchantId` with 503 while the lane would refuse its image, so
 * that a full lane costs a refusal and not the reading and checking of a 2 MiB body.
 */
export function refuseWhileLaneFull(merchantId: number) {
  try {
    logoImageLane().images.refuseWhenFull(String(merchantId))
  } catch (error) {
    if (error instanceof LaneFullError) throw laneFull(error)
    throw error
  }
}

/**
 * Decides whether `upload` (a private file in a directory of its own) is an acceptable
 * logo of `merchantId`, and writes its re-encoded copy beside it. When `signal` aborts
 * (the caller has gone) while the image waits for the lane, it is dropped
 * (LaneAbandoned) and never decoded; while the encoder works on it, the encoder is
 * killed once GRACE_AFTER_CLIENT_LEFT_MS pass (ChildWorkerAbandoned).
 */
export async function normalizeLogo(
  merchantId: number,
  upload: FileOnDisk,
  options: { signal?: AbortSignal } = {}
): Promise<NormalizedLogo> {
  if (upload.size === 0) throw refuse('The file is empty.')
  if (upload.size > LOGO_MAX_BYTES) throw refuse('The file must not be larger than 2,048 KB.')
  const { format, size } = await logoFileBuffers.withBytes(upload, async (bytes) => {
    const detected = await fileTypeFromBuffer(bytes)
    const named = detected ? FORMAT_OF_MIME[detected.mime] : undefined
    if (!named) throw refuse('The file must be a PNG, JPEG or WebP image.')
    if (!endsWithItsContainer(named, bytes) || carriesMarkup(bytes)) {
      throw refuse('The file is not a well-formed image: it is truncated or carries other content.')
    }
    // Out of bounds is refused here, from the header: it never takes the lane's time.
    const stated = headerPixelSize(named, bytes)
    if (!stated) throw refuse(UNDECODABLE)
    const outOfBounds = dimensionsRefusal(stated.width, stated.height)
    if (outOfBounds) throw refuse(outOfBounds)
    return { format: named, size: stated }
  })

  const { images, encoders } = logoImageLane()
  const target = join(dirname(upload.path), 'stored')
  let outcome: EncodeOutcome
  try {
    outcome = await images.run(
      String(merchantId),
      // One deadline for the whole image, header to stored copy, read when the image
      // starts (tests shorten it).
      () =>
        encoders.call(
          { source: upload.path, target, format },
          {
            timeoutMs: settings.logoImageDeadlineSeconds() * 1000,
            signal: options.signal,
            graceMs: GRACE_AFTER_CLIENT_LEFT_MS,
          }
        ),
      workOf(size),
      options.signal
    )
  } catch (error) {
    if (error instanceof LaneFullError) throw laneFull(error)
    // A hung encoder, or a host too busy to finish in time: the encoder was killed and
    // is replaced; the time it took is charged to the merchant, so that sending the
    // same image again is bounded by the merchant's share.
    if (error instanceof ChildWorkerTimedOut) {
      logger.warn({ timeoutMs: error.timeoutMs }, 'logo encoder passed its deadline')
      throw ApiError.serviceUnavailable(
        'The image could not be processed in time. Try again later.',
        images.retryAfterSeconds()
      )
    }
    // The encoder died on this image (a crash or out of memory in the native decoder):
    // the upload is what it could not decode.
    if (error instanceof ChildWorkerExited) {
      logger.error({ err: { name: error.name, message: error.message } }, 'logo encoder exited')
      throw refuse(UNDECODABLE)
    }
    throw error
  }
  if ('refused' in outcome) throw refuse(outcome.refused)
  const { bytes, width, height } = outcome.stored
  return { format, path: target, size: bytes, width, height }
}

/** The container's own length matches the file: nothing appended, nothing cut off. */
function endsWithItsContainer(format: LogoFormat, bytes: Buffer): boolean {
  if (format === 'png') return pngEndsAtIend(bytes)
  if (format === 'webp') return bytes.length >= 12 && bytes.readUInt32LE(4) + 8 === bytes.length
  // JPEG: the last marker is End Of Image.
  return bytes.length >= 4 && bytes[bytes.length - 2] === 0xff && bytes[bytes.length - 1] === 0xd9
}

/** Walks the PNG chunks from the signature: IEND must be the last byte of the file. */
function pngEndsAtIend(bytes: Buffer): boolean {
  let offset = 8
  while (offset + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(offset)
    const type = bytes.toString('latin1', offset + 4, offset + 8)
    const next = offset + 12 + length
    if (next > bytes.length) return false
    if (type === 'IEND') return next === bytes.length
    offset = next
  }
  return false
}
