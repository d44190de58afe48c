/*
| The pixel work of a logo upload (app/services/merchants/logo_image.ts decides the
| rest): runs in the logo encoder's child process (logo_encoder_process.ts), never on
| the server's own threads.
|
| 1. sharp reads the header: the format is the one the magic bytes named, and the
|    dimensions are within the bounds (logo_bounds.ts, which the server judged from
|    the header already), so a decompression bomb is refused before its pixels are
|    allocated;
| 2. the first page is decoded to the end (a truncated or corrupt image fails here),
|    EXIF orientation applied, in sRGB: metadata (EXIF with GPS, XMP, comments) and any
|    trailing payload are left behind; an animated PNG or WebP keeps its first frame;
| 3. it is encoded in its own format, and the stored copy never exceeds the upload cap
|    (portal-api.md: max 2,048 KB): the usual encoding first, then one smaller one
|    (JPEG and WebP at a lower quality; PNG, still lossless, with adaptive row filters),
|    then, when even that is over the cap (re-encoding a detailed image can make it
|    larger than the upload was), the smaller encoding of the image scaled down, the
|    aspect ratio kept, until it fits. A valid image within the bounds is always stored.
| It reads the upload from its file and writes the stored copy to another
| (logo_bounds.ts › EncodeRequest says why). The time all of this may take is bounded
| by the server, which kills this process when the image's deadline passes
| (logo_image.ts).
*/
import { readFile, writeFile } from 'node:fs/promises'
import type { Metadata, OutputInfo, Sharp } from 'sharp'
import {
  dimensionsRefusal,
  LOGO_MAX_BYTES,
  LOGO_MAX_PIXELS,
  type EncodeOutcome,
  type EncodeRequest,
  type LogoFormat,
} from '#services/merchants/logo_bounds'

/** The encodings tried in order, usual first: each one pass over the decoded pixels. */
const ENCODINGS: Record<LogoFormat, Array<(pixels: Sharp) => Sharp>> = {
  png: [
    (pixels) => pixels.png({ compressionLevel: 9 }),
    // Slower, and smaller on photographs and gradients (the filters most encoders use).
    (pixels) => pixels.png({ compressionLevel: 9, adaptiveFiltering: true }),
  ],
  jpeg: [
    (pixels) => pixels.jpeg({ quality: 90, mozjpeg: true }),
    (pixels) => pixels.jpeg({ quality: 60, mozjpeg: true }),
  ],
  webp: [(pixels) => pixels.webp({ quality: 90 }), (pixels) => pixels.webp({ quality: 50 })],
}

/**
 * A scaled copy aims a tenth under the cap: the encoded size follows the pixel count
 * closely, so the first scaled encoding nearly always fits.
 */
const SCALE_MARGIN = 0.9

const refused = (message: string): EncodeOutcome => ({ refused: message })
const UNDECODABLE = refused('The image could not be decoded.')

type Raw = { data: Buffer; info: OutputInfo }

export async function encodeLogo({
  source,
  target,
  format,
}: EncodeRequest): Promise<EncodeOutcome> {
  // On use, not with the module: only image work needs sharp's native binaries
  // (logo_encoder_process.ts has loaded it already).
  const { default: sharp } = await import('sharp')
  const input = await readFile(source)
  let metadata: Metadata
  try {
    metadata = await sharp(input, { failOn: 'error' }).metadata()
  } catch {
    return UNDECODABLE
  }
  if (metadata.format !== format) return UNDECODABLE
  const outOfBounds = dimensionsRefusal(metadata.width ?? 0, metadata.height ?? 0)
  if (outOfBounds) return refused(outOfBounds)

  let decoded: Raw
  try {
    // One page only (an animated WebP or PNG keeps its first frame); no metadata kept.
    decoded = await sharp(input, { failOn: 'error', limitInputPixels: LOGO_MAX_PIXELS, pages: 1 })
      .rotate()
      .toColorspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true })
  } catch {
    // Truncated or corrupt pixel data fails here, where the whole image is decoded.
    return UNDECODABLE
  }

  const pixelsOf = ({ data, info }: Raw) =>
    sharp(data, {
      raw: { width: info.width, height: info.height, channels: info.channels as 1 | 2 | 3 | 4 },
    })
  let { width, height } = decoded.info
  let encoded: Buffer | undefined
  const encodings = ENCODINGS[format]
  for (const encode of encodings) {
    encoded = await encodedOrNothing(encode(pixelsOf(decoded)))
    if (!encoded) return UNDECODABLE
    if (encoded.length <= LOGO_MAX_BYTES) break
  }

  // Over the cap even at the smaller encoding: scale down, each pass smaller than the
  // last, so this ends (a 1 x 1 image fits whatever the encoding).
  const smaller = encodings[encodings.length - 1]
  while (encoded!.length > LOGO_MAX_BYTES) {
    const longer = Math.max(width, height)
    const factor = Math.min(
      Math.sqrt(LOGO_MAX_BYTES / encoded!.length) * SCALE_MARGIN,
      (longer - 1) / longer
    )
    width = Math.max(1, Math.floor(width * factor))
    height = Math.max(1, Math.floor(height * factor))
    encoded = await encodedOrNothing(
      smaller(pixelsOf(decoded).resize(width, height, { fit: 'fill' }))
    )
    if (!encoded) return UNDECODABLE
  }

  await writeFile(target, encoded!, { flag: 'wx', mode: 0o600 })
  return { stored: { bytes: encoded!.length, width, height } }
}

/** The encoded bytes, or nothing when libvips fails on these pixels. */
async function encodedOrNothing(pipeline: Sharp): Promise<Buffer | undefined> {
  try {
    return await pipeline.toBuffer()
  } catch {
    return undefined
  }
}
