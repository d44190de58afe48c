/*
| Image bytes for the logo tests, made with sharp in the test run (no binary
| fixtures): valid PNG, JPEG and WebP, and each kind of refused upload.
*/
import { randomBytes } from 'node:crypto'
import { crc32, deflateSync } from 'node:zlib'
import sharp from 'sharp'

const solid = (width = 8, height = 8) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 60 } } })

export const tinyPng = () => solid().png().toBuffer()
export const tinyJpeg = () => solid().jpeg().toBuffer()
export const tinyWebp = () => solid().webp().toBuffer()
export const tinyGif = () => solid().gif().toBuffer()

/** A JPEG whose EXIF carries GPS coordinates and an orientation, as a phone photo would. */
export const jpegWithGps = () =>
  solid(16, 8)
    .jpeg()
    .withExif({
      IFD0: { Make: 'PhoneMaker', Model: 'Phone 15' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '14/1 35/1 2/1',
        GPSLongitudeRef: 'E',
        GPSLongitude: '120/1 58/1 4/1',
      },
    })
    .toBuffer()

/** A PNG cut short: its last chunks (IDAT end, IEND) are missing. */
export async function truncatedPng() {
  const png = await solid(64, 64).png({ compressionLevel: 0 }).toBuffer()
  return png.subarray(0, Math.floor(png.length / 2))
}

/** Rewrites a PNG chunk's data (same length) and fixes its CRC. */
function patchChunk(png: Buffer, type: string, patch: (data: Buffer) => void) {
  const copy = Buffer.from(png)
  let offset = 8
  while (offset < copy.length) {
    const length = copy.readUInt32BE(offset)
    if (copy.toString('latin1', offset + 4, offset + 8) === type) {
      patch(copy.subarray(offset + 8, offset + 8 + length))
      copy.writeUInt32BE(crc32(copy.subarray(offset + 4, offset + 8 + length)), offset + 8 + length)
      return copy
    }
    offset += 12 + length
  }
  throw new Error(`no ${type} chunk`)
}

/** A structurally valid PNG whose header says it is 0 pixels wide. */
export async function zeroWidthPng() {
  return patchChunk(await tinyPng(), 'IHDR', (data) => data.writeUInt32BE(0, 0))
}

/** Inserts a chunk before IEND. */
function withChunk(png: Buffer, type: string, data: Buffer) {
  const chunk = pngChunk(type, data)
  return Buffer.concat([png.subarray(0, png.length - 12), chunk, png.subarray(png.length - 12)])
}

const SCRIPT = '<html><body><script>alert(document.cookie)</script></body></html>'

/** A PNG with an HTML page appended after IEND. */
export async function pngThenHtml() {
  return Buffer.concat([await tinyPng(), Buffer.from(SCRIPT)])
}

/** A JPEG with an archive appended after its End Of Image marker (a GIFAR-style polyglot). */
export async function jpegThenZip() {
  const zip = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(64, 1)])
  return Buffer.concat([await tinyJpeg(), zip])
}

/** A WebP whose file goes on past its RIFF size. */
export async function webpThenHtml() {
  return Buffer.concat([await tinyWebp(), Buffer.from(SCRIPT)])
}

/** A well-formed PNG with an HTML page hidden in a text chunk. */
export async function pngWithHtmlChunk() {
  return withChunk(await tinyPng(), 'tEXt', Buffer.from(`Comment\0${SCRIPT}`, 'latin1'))
}

export const svgLogo = () =>
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><script>alert(1)</script></svg>'
  )
export const htmlPage = () => Buffer.from(`<!DOCTYPE html>${SCRIPT}`)
export const textFile = () => Buffer.from('this is not an image, whatever its name says\n')

/** 2,049 KB starting like a PNG (size is judged before content). */
export const oversizeFile = () => {
  const bytes = Buffer.alloc(2049 * 1024, 0x41)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes)
  return bytes
}

/** A small PNG (tens of KB) that decodes to 25 million pixels. */
let bomb: Promise<Buffer> | undefined
export function decompressionBomb() {
  bomb ??= sharp({ create: { width: 5000, height: 5000, channels: 3, background: '#ffffff' } })
    .png({ compressionLevel: 9 })
    .toBuffer()
  return bomb
}

/** `side` x `side` pixels of RGB noise. */
const noise = (side: number) =>
  sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })

/** A gradient with a little noise, as PNG with adaptive row filters (as most encoders write). */
function noisyGradientPng(side: number) {
  const pixels = randomBytes(side * side * 3)
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const at = (y * side + x) * 3
      pixels[at] = ((x * 255) / side + (pixels[at] % 4)) & 255
      pixels[at + 1] = ((y * 255) / side + (pixels[at + 1] % 4)) & 255
      pixels[at + 2] = (((x + y) * 127) / side + (pixels[at + 2] % 4)) & 255
    }
  }
  return sharp(pixels, { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 6, adaptiveFiltering: true })
    .toBuffer()
}

/**
 * Uploads under the 2,048 KB cap whose usual re-encoding is over it: noise saved at a
 * low quality takes more bytes at the usual one; a filtered PNG more without filters.
 */
export const overCapOnceReencoded = {
  webp: () => noise(2300).webp({ quality: 1 }).toBuffer(),
  jpeg: () => noise(2400).jpeg({ quality: 30 }).toBuffer(),
  png: () => noisyGradientPng(1300),
}

/** A 3600 x 2400 WebP under the upload cap that no encoding of its pixels fits within it. */
export const webpTooDetailedForTheCap = () =>
  sharp(randomBytes(3600 * 2400 * 3), { raw: { width: 3600, height: 2400, channels: 3 } })
    .webp({ quality: 1 })
    .toBuffer()

/**
 * A logo about as costly as the upload cap admits (issue 21 measured one like it): a
 * 4096 x 4096 WebP at quality 1 (about 1 MB), 15 % of it noise, the rest blurred noise. Its
 * usual re-encoding is about 5 MB, over the cap, so it is stored at the lower quality
 * (about 1.9 MB): a decoding and two encodings, seconds of one core each. For the
 * benchmarks (bench/logo_lane.ts); too slow for a test.
 */
export async function costliestWebp() {
  const side = 4096
  const noisyRows = Math.round(side * 0.15)
  const band = (rows: number, blur: number | undefined) => {
    const pixels = sharp(randomBytes(side * rows * 3), {
      raw: { width: side, height: rows, channels: 3 },
    })
    return (blur ? pixels.blur(blur) : pixels).png({ compressionLevel: 0 }).toBuffer()
  }
  return sharp({ create: { width: side, height: side, channels: 3, background: '#000000' } })
    .composite([
      { input: await band(noisyRows, undefined), top: 0, left: 0 },
      { input: await band(side - noisyRows, 0.6), top: noisyRows, left: 0 },
    ])
    .webp({ quality: 1 })
    .toBuffer()
}

/** A PNG chunk: length, type, data, CRC. */
function pngChunk(type: string, data: Buffer) {
  const chunk = Buffer.alloc(12 + data.length)
  chunk.writeUInt32BE(data.length, 0)
  chunk.write(type, 4, 'latin1')
  data.copy(chunk, 8)
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length)
  return chunk
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/**
 * A grey PNG `width` pixels wide and `height` tall, built by hand: sharp takes a minute
 * to make the 1 x 16,777,216 one (issue 38), zlib a fraction of a second.
 */
export function handMadeGreyPng(width: number, height: number) {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 0 // greyscale
  // Each row: filter type 0, then its pixels.
  const rows = Buffer.alloc((width + 1) * height, 0x80)
  for (let row = 0; row < height; row++) rows[row * (width + 1)] = 0
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(rows, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

/** The chunks of a PNG, signature left out. */
function chunksOf(png: Buffer) {
  const chunks: Array<{ type: string; data: Buffer }> = []
  for (let offset = 8; offset < png.length;) {
    const length = png.readUInt32BE(offset)
    chunks.push({
      type: png.toString('latin1', offset + 4, offset + 8),
      data: png.subarray(offset + 8, offset + 8 + length),
    })
    offset += 12 + length
  }
  return chunks
}

/** The chunk types of a PNG, in order. */
export const pngChunkTypes = (png: Buffer) => chunksOf(png).map((chunk) => chunk.type)

/**
 * An animated PNG of two 16 x 8 frames, red then blue: the red one is the default
 * image (IDAT), the blue one follows in fdAT chunks, as APNG encoders write them.
 */
export async function animatedPng() {
  const frame = (background: string) =>
    sharp({ create: { width: 16, height: 8, channels: 3, background } })
      .png()
      .toBuffer()
  const [first, second] = await Promise.all([frame('#ff0000'), frame('#0000ff')])
  const control = (sequence: number) => {
    const data = Buffer.alloc(26)
    data.writeUInt32BE(sequence, 0)
    data.writeUInt32BE(16, 4) // width
    data.writeUInt32BE(8, 8) // height
    data.writeUInt16BE(1, 20) // delay: 1/10 s
    data.writeUInt16BE(10, 22)
    return pngChunk('fcTL', data)
  }
  const animation = Buffer.alloc(8)
  animation.writeUInt32BE(2, 0) // frames
  animation.writeUInt32BE(0, 4) // loop for ever
  const firstChunks = chunksOf(first)
  const secondFrameData = chunksOf(second)
    .filter((chunk) => chunk.type === 'IDAT')
    .map((chunk, index) => {
      const data = Buffer.alloc(4 + chunk.data.length)
      data.writeUInt32BE(2 + index, 0)
      chunk.data.copy(data, 4)
      return pngChunk('fdAT', data)
    })
  return Buffer.concat([
    PNG_SIGNATURE,
    ...firstChunks
      .filter((chunk) => chunk.type === 'IHDR')
      .map((chunk) => pngChunk(chunk.type, chunk.data)),
    pngChunk('acTL', animation),
    control(0),
    ...firstChunks
      .filter((chunk) => chunk.type === 'IDAT')
      .map((chunk) => pngChunk(chunk.type, chunk.data)),
    control(1),
    ...secondFrameData,
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}
