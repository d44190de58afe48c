/*
| The logo's bounds and the messages between the server and its encoder process, apart
| from the encoder (logo_encoder.ts imports sharp): the server reads these without
| loading libvips, which runs only in the encoder's child process.
*/

/** portal-api.md › Merchant and logo: max 2,048 KB, uploaded and stored. */
export const LOGO_MAX_BYTES = 2048 * 1024
/**
 * At most 4096 pixels a side: ample for a logo, and decoding the largest needs at
 * most 64 MiB (RGBA) and about 5 s of one core. A bound on the pixel count alone let
 * a 1 x 16,777,216 PNG of 65 KB through, whose decoding and encoding, a row at a time,
 * held the lane for a minute (issue 38).
 */
export const LOGO_MAX_SIDE = 4096
export const LOGO_MAX_PIXELS = LOGO_MAX_SIDE * LOGO_MAX_SIDE
/**
 * The longer side at most 32 times the shorter: wide wordmarks and banners (15:1 at
 * most in practice) pass; a sliver of a few pixels is no logo.
 */
export const LOGO_MAX_ASPECT_RATIO = 32

/**
 * Why an image of `width` x `height` pixels is no acceptable logo, or undefined when
 * it is one: the one rule, judged from the header before anything is decoded (in the
 * server, logo_header.ts) and again from sharp's reading of it (in the encoder).
 */
export function dimensionsRefusal(width: number, height: number): string | undefined {
  if (!(width > 0 && height > 0)) return 'The image has no pixels.'
  if (width > LOGO_MAX_SIDE || height > LOGO_MAX_SIDE) {
    return `The image has too many pixels: at most ${LOGO_MAX_SIDE} x ${LOGO_MAX_SIDE}.`
  }
  if (Math.max(width, height) > LOGO_MAX_ASPECT_RATIO * Math.min(width, height)) {
    return `The image is too narrow for a logo: its longer side may be at most ${LOGO_MAX_ASPECT_RATIO} times its shorter side.`
  }
  return undefined
}

export type LogoFormat = 'png' | 'jpeg' | 'webp'

/**
 * The upload and its re-encoded copy travel as files, never as bytes over the IPC
 * channel: copying megabytes through the server's heap on every upload made its
 * garbage collections, and their pauses, come several times as often under upload
 * load (bench/README.md › noisy_neighbour).
 */
export interface EncodeRequest {
  /** The checked upload. */
  source: string
  /** Where the encoder writes the copy to store (only when it answers `stored`). */
  target: string
  format: LogoFormat
}

export type EncodeOutcome =
  { stored: { bytes: number; width: number; height: number } } | { refused: string }
