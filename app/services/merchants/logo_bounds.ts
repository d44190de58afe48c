/*
| The logo's bounds and the messages between the server and its encoder process, apart
| from the encoder (logo_encoder.ts imports sharp): the server reads these without
| loading libvips, which runs only in the encoder's child process.
*/

/** portal-api.md › Merchant and logo: max 2,048 KB, uploaded and stored. */
export const LOGO_MAX_BYTES = 2048 * 1024
/** 4096 x 4096: ample for a logo; decoding it needs at most 64 MiB (RGBA). */
export const LOGO_MAX_PIXELS = 4096 * 4096

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
