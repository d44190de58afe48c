/*
| An image's pixel dimensions as its header states them, read from the first bytes in
| the server without decoding anything, so that an image over the bounds
| (logo_bounds.ts) is refused before it takes a place in the image lane. The encoder
| judges sharp's own reading again: a header this misreads cannot slip through.
*/
import type { LogoFormat } from '#services/merchants/logo_bounds'

export interface PixelSize {
  width: number
  height: number
}

/** The dimensions in the header of `bytes`, an image of `format`; undefined when none is found. */
export function headerPixelSize(format: LogoFormat, bytes: Buffer): PixelSize | undefined {
  if (format === 'png') return pngSize(bytes)
  if (format === 'webp') return webpSize(bytes)
  return jpegSize(bytes)
}

/** IHDR is the first chunk, right after the 8-byte signature. */
function pngSize(bytes: Buffer): PixelSize | undefined {
  if (bytes.length < 24 || bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}

/** The first chunk after RIFF....WEBP: lossy (VP8), lossless (VP8L) or extended (VP8X). */
function webpSize(bytes: Buffer): PixelSize | undefined {
  if (bytes.length < 30) return undefined
  const chunk = bytes.toString('latin1', 12, 16)
  if (chunk === 'VP8X') {
    // The canvas: two 24-bit little-endian values, each one less than the size.
    return { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 }
  }
  if (chunk === 'VP8L') {
    if (bytes[20] !== 0x2f) return undefined
    // 14 bits of width - 1, then 14 bits of height - 1.
    const bits = bytes.readUInt32LE(21)
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 }
  }
  if (chunk === 'VP8 ') {
    // A key frame: 3 bytes of frame tag, the start code 9d 01 2a, then 14-bit sizes.
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return undefined
    return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff }
  }
  return undefined
}

/** Start Of Frame markers (C0-CF but DHT C4, JPG C8 and DAC CC) hold the frame's size. */
const isStartOfFrame = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc

/** Walks the segments from SOI to the first Start Of Frame (before any scan). */
function jpegSize(bytes: Buffer): PixelSize | undefined {
  let offset = 2
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return undefined
    const marker = bytes[offset + 1]
    // Fill bytes, and markers that carry no length (TEM, RSTn).
    if (marker === 0xff) {
      offset += 1
      continue
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2
      continue
    }
    // Start Of Scan or End Of Image before any frame: no size to read.
    if (marker === 0xda || marker === 0xd9) return undefined
    const length = bytes.readUInt16BE(offset + 2)
    if (isStartOfFrame(marker)) {
      if (offset + 9 > bytes.length) return undefined
      return { height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) }
    }
    offset += 2 + length
  }
  return undefined
}
