/*
| portal-api.md › Merchant and logo: "a real PNG, JPEG or WebP image, max 2,048 KB",
| decided by content, never by the client's filename or declared type:
| 1. the magic bytes (file-type) name PNG, JPEG or WebP;
| 2. the container ends exactly where the file ends, and no markup (HTML, SVG, PHP)
|    rides along: polyglots and truncated uploads are refused;
| 3. sharp decodes the whole image (dimensions > 0, decodable to the end, at most
|    LOGO_MAX_PIXELS decoded pixels, so a decompression bomb is refused before its
|    pixels are allocated);
| 4. the image is re-encoded by sharp in its own format, which drops EXIF (GPS
|    coordinates of a phone photo), XMP, comments and any trailing payload; EXIF
|    orientation is applied first so the logo still looks as uploaded.
| Every refusal is a 422 on `file`.
*/
import sharp, { type Metadata } from 'sharp'
import { fileTypeFromBuffer } from 'file-type'
import ApiError from '#exceptions/api_error'

export const LOGO_MAX_BYTES = 2048 * 1024
/** 4096 x 4096: ample for a logo; decoding it needs at most 64 MiB (RGBA). */
export const LOGO_MAX_PIXELS = 4096 * 4096

export type LogoFormat = 'png' | 'jpeg' | 'webp'

export const LOGO_FORMATS: Record<LogoFormat, { extension: string; contentType: string }> = {
  png: { extension: 'png', contentType: 'image/png' },
  jpeg: { extension: 'jpg', contentType: 'image/jpeg' },
  webp: { extension: 'webp', contentType: 'image/webp' },
}

const FORMAT_OF_MIME: Record<string, LogoFormat> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/webp': 'webp',
}

export interface NormalizedLogo {
  format: LogoFormat
  data: Buffer
  width: number
  height: number
}

const refuse = (message: string) => ApiError.field('file', message)

/** Decides whether `bytes` is an acceptable logo, and returns its re-encoded copy. */
export async function normalizeLogo(bytes: Buffer): Promise<NormalizedLogo> {
  if (bytes.length === 0) throw refuse('The file is empty.')
  if (bytes.length > LOGO_MAX_BYTES) throw refuse('The file must not be larger than 2,048 KB.')
  const detected = await fileTypeFromBuffer(bytes)
  const format = detected ? FORMAT_OF_MIME[detected.mime] : undefined
  if (!format) throw refuse('The file must be a PNG, JPEG or WebP image.')
  if (!endsWithItsContainer(format, bytes) || carriesMarkup(bytes)) {
    throw refuse('The file is not a well-formed image: it is truncated or carries other content.')
  }

  let metadata: Metadata
  try {
    metadata = await sharp(bytes, { failOn: 'error' }).metadata()
  } catch {
    throw refuse('The image could not be decoded.')
  }
  if (metadata.format !== format) throw refuse('The image could not be decoded.')
  if (!metadata.width || !metadata.height) throw refuse('The image has no pixels.')
  if (metadata.width * metadata.height > LOGO_MAX_PIXELS) {
    throw refuse('The image has too many pixels (at most 4096 x 4096).')
  }

  try {
    // One page only (an animated WebP or PNG keeps its first frame); no metadata kept.
    const image = sharp(bytes, { failOn: 'error', limitInputPixels: LOGO_MAX_PIXELS, pages: 1 })
      .rotate()
      .toColorspace('srgb')
    const encoded =
      format === 'png'
        ? image.png({ compressionLevel: 9 })
        : format === 'jpeg'
          ? image.jpeg({ quality: 90, mozjpeg: true })
          : image.webp({ quality: 90 })
    const { data, info } = await encoded.toBuffer({ resolveWithObject: true })
    return { format, data, width: info.width, height: info.height }
  } catch {
    // Truncated or corrupt pixel data fails here, where the whole image is decoded.
    throw refuse('The image could not be decoded.')
  }
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

// Markup a browser or interpreter would act on. Long enough that compressed pixel data
// matches it by chance with negligible probability.
const MARKUP = /<(?:script|html|body|iframe|object|embed|svg)[\s>/]|<\?php|<!doctype/i

function carriesMarkup(bytes: Buffer): boolean {
  return MARKUP.test(bytes.toString('latin1'))
}
