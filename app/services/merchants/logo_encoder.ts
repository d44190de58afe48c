/*
| The pixel work of a logo upload (app/services/merchants/logo_image.ts decides the
| rest): runs in the logo encoder's child process (logo_encoder_process.ts), never on
| the server's own threads.
|
| 1. sharp reads the header: the format is the one the magic bytes named, the image has
|    pixels, and at most LOGO_MAX_PIXELS of them, so a decompression bomb is refused
|    before its pixels are allocated;
| 2. the first page is decoded to the end (a truncated or corrupt image fails here),
|    EXIF orientation applied, in sRGB: metadata (EXIF with GPS, XMP, comments) and any
|    trailing payload are left behind;
| 3. it is encoded in its own format, and the stored copy never exceeds the upload cap
|    (portal-api.md: max 2,048 KB): the usual encoding first, then at most one smaller
|    one (JPEG and WebP at a lower quality; PNG, still lossless, with adaptive row
|    filters). An image that fits neither is refused: re-encoding a detailed image
|    can make it larger than the upload was.
| It reads the upload from its file and writes the stored copy to another
| (logo_bounds.ts › EncodeRequest says why).
| A pipeline still running after PIPELINE_TIMEOUT_SECONDS is stopped (a pathological
| file within the pixel limit) and the image refused as undecodable.
*/
import { readFile, writeFile } from 'node:fs/promises'
import type { Metadata, OutputInfo, Sharp } from 'sharp'
import {
  LOGO_MAX_BYTES,
  LOGO_MAX_PIXELS,
  type EncodeOutcome,
  type EncodeRequest,
  type LogoFormat,
} from '#services/merchants/logo_bounds'

/** Many times what the largest legitimate image takes, so that a busy host does not trip it. */
const PIPELINE_TIMEOUT_SECONDS = 60

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

const refused = (message: string): EncodeOutcome => ({ refused: message })
const UNDECODABLE = refused('The image could not be decoded.')

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
  if (!metadata.width || !metadata.height) return refused('The image has no pixels.')
  if (metadata.width * metadata.height > LOGO_MAX_PIXELS) {
    return refused('The image has too many pixels (at most 4096 x 4096).')
  }

  let decoded: { data: Buffer; info: OutputInfo }
  try {
    // One page only (an animated WebP or PNG keeps its first frame); no metadata kept.
    decoded = await sharp(input, { failOn: 'error', limitInputPixels: LOGO_MAX_PIXELS, pages: 1 })
      .timeout({ seconds: PIPELINE_TIMEOUT_SECONDS })
      .rotate()
      .toColorspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true })
  } catch {
    // Truncated or corrupt pixel data fails here, where the whole image is decoded.
    return UNDECODABLE
  }

  const { width, height } = decoded.info
  const channels = decoded.info.channels as 1 | 2 | 3 | 4
  for (const encode of ENCODINGS[format]) {
    const pixels = sharp(decoded.data, { raw: { width, height, channels } }).timeout({
      seconds: PIPELINE_TIMEOUT_SECONDS,
    })
    let data: Buffer
    try {
      data = await encode(pixels).toBuffer()
    } catch {
      return UNDECODABLE
    }
    if (data.length <= LOGO_MAX_BYTES) {
      await writeFile(target, data, { flag: 'wx', mode: 0o600 })
      return { stored: { bytes: data.length, width, height } }
    }
  }
  return refused(
    'The image cannot be stored within 2,048 KB once re-encoded: upload a smaller or less detailed image.'
  )
}
