/*
| Reading a multipart body as a stream (portal-api.md › Merchant and logo: multipart
| field `file` only, max 2,048 KB; extra fields and oversize are 422): the one file
| part goes to a private temporary file, other parts are read and dropped, and file
| bytes past the limit stop the upload (the rest of the request is drained, never
| buffered). Memory stays bounded whatever the client sends.
|
| Why busboy and not the framework's `request.multipart`: @adonisjs/bodyparser looks a
| file part's handler up by its name in a plain object, so a part named after an
| Object.prototype member (`constructor`, `__proto__`, `toString`, `constructor[]`...)
| finds a function of Object.prototype instead, throws inside a stream event listener
| and takes the whole process down (an unhandled rejection). busboy hands over every
| part by name and nothing else; names are kept in null-prototype objects
| (multipart_fields.ts), so such a name is an ordinary unlisted field, refused by
| name (422).
*/
import type { IncomingMessage } from 'node:http'
import { createWriteStream } from 'node:fs'
import { finished, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import busboy from 'busboy'
import ApiError from '#exceptions/api_error'
import { addField } from '#http/multipart_fields'

/** Parts of one body (the file, fields and files alike); one more is refused. */
const MAX_PARTS = 20
/** Bytes of one text field kept (a merchant selector is short); the rest is dropped. */
const MAX_FIELD_BYTES = 16 * 1024

const MALFORMED = 'The multipart body is malformed.'

export interface ReceivedParts {
  /** Text fields as a request body (null-prototype objects all the way down). */
  fields: Record<string, unknown>
  /** How many file parts named exactly `field` came (the first was written to `target`). */
  files: number
  /** Names of every other part, in order: text fields, and files under other names. */
  otherParts: string[]
}

/**
 * Streams the multipart body of `request` through busboy. Resolves once the body has
 * been read to its end and the file is on disk; rejects with a 422 (malformed, too
 * many parts, file too large) or with the client's abort. On a rejection the request
 * is unpiped and drained, and every file stream is closed before it settles.
 */
export function readParts(
  request: IncomingMessage,
  options: { field: string; maxBytes: number; tooLarge: string; target: string }
): Promise<ReceivedParts> {
  const { field, maxBytes, tooLarge, target } = options
  const received: ReceivedParts = { fields: Object.create(null), files: 0, otherParts: [] }

  return new Promise((resolve, reject) => {
    if (request.readableEnded || request.destroyed) {
      reject(request.readableAborted ? clientGone() : ApiError.field(field, MALFORMED))
      return
    }

    let parser: busboy.Busboy
    try {
      parser = busboy({
        headers: request.headers,
        defParamCharset: 'utf8',
        limits: {
          parts: MAX_PARTS + 1,
          fieldSize: MAX_FIELD_BYTES,
          fileSize: maxBytes + 1,
        },
      })
    } catch {
      // No boundary, or a content type busboy does not read.
      request.resume()
      reject(ApiError.field(field, MALFORMED))
      return
    }

    let settled = false
    let fileBytes = 0
    /** File writes under way; each resolves once its file is closed, never rejects. */
    const writes: Array<Promise<unknown>> = []

    // The client going away before the end of its body (called back asynchronously).
    const stopWatchingRequest = finished(request, { writable: false }, (error) => {
      if (error) settle(clientGone(error))
    })
    const settle = (error?: unknown) => {
      if (settled) return
      settled = true
      stopWatchingRequest()
      if (error !== undefined) {
        request.unpipe(parser)
        // Closes the part being read: its write stops and its file is closed.
        parser.destroy()
        // The rest of the body is read and dropped, never buffered.
        if (!request.destroyed) request.resume()
      }
      void Promise.all(writes).then(() => (error === undefined ? resolve(received) : reject(error)))
    }

    const countFileBytes = (length: number) => {
      fileBytes += length
      if (fileBytes > maxBytes) settle(ApiError.field(field, tooLarge))
    }

    parser.on('file', (name: string | undefined, stream: Readable, info: busboy.FileInfo) => {
      // The parser destroys a part's stream only when the body itself is broken.
      let broken = false
      stream.on('error', () => (broken = true))
      stream.once('limit', () => settle(ApiError.field(field, tooLarge)))
      const { filename } = info
      if (!settled && name === field && filename) {
        received.files += 1
        if (received.files === 1) {
          const write = writeFile(stream, target, countFileBytes, () => settled)
          writes.push(
            write.catch((error) => settle(broken ? ApiError.field(field, MALFORMED) : error))
          )
          return
        }
      } else if (!settled && name) {
        // Refused by its name; under `field`, a value that is not a file (busboy gives
        // no filename for `filename=""`, an empty file input, either).
        received.otherParts.push(name)
      }
      // Read and dropped (a part without a name is nothing), its bytes counted.
      stream.on('data', (chunk: Buffer) => countFileBytes(chunk.length))
    })

    parser.on('field', (name: string | undefined, value: string) => {
      if (settled || !name) return
      received.otherParts.push(name)
      addField(received.fields, name, value)
    })

    parser.on('partsLimit', () => settle(ApiError.field(field, MALFORMED)))
    parser.on('error', () => settle(ApiError.field(field, MALFORMED)))
    parser.on('finish', () => {
      // Every part has been read; the file is complete once its write has finished.
      void Promise.all(writes).then(() => settle())
    })

    request.pipe(parser)
  })
}

/** Writes one file part to `target` (created, private), counting its bytes on the way. */
async function writeFile(
  stream: Readable,
  target: string,
  count: (length: number) => void,
  stopped: () => boolean
) {
  const file = createWriteStream(target, { flags: 'wx', mode: 0o600 })
  // Its errors reach the pipeline; this keeps a late one from being unhandled.
  file.on('error', () => {})
  const closed = new Promise<void>((resolve) => file.once('close', () => resolve()))
  try {
    await pipeline(
      stream,
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          count(chunk.length)
          if (stopped()) return
          yield chunk
        }
      },
      file
    )
  } finally {
    if (!file.closed) file.destroy()
    await closed
  }
}

/**
 * The client closed its connection before its body had arrived. The code is the one
 * the exception handler knows for an aborted body read (logged as an abort, not as a
 * failure of the service).
 */
function clientGone(cause?: unknown) {
  return Object.assign(new Error('The client closed the connection during the upload.'), {
    code: 'ECONNRESET',
    cause,
  })
}
