/*
| Receiving POST /portal/merchant/logo's multipart body (portal-api.md › Merchant and
| logo: multipart field `file` only, max 2,048 KB; extra fields and oversize are 422).
| The route is in config/bodyparser.ts `processManually`, so nothing is read before
| authentication and the role check, and the body is read here, streamed: the one
| `file` part goes to a private temporary file, other parts are read and dropped, and
| file bytes past `maxBytes` stop the upload (the rest of the request is drained by the
| parser, never buffered). Memory stays bounded whatever the client sends.
*/
import { createWriteStream } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { HttpContext } from '@adonisjs/core/http'
import ApiError, { type FieldErrors } from '#exceptions/api_error'

const MAX_PARTS = 20

export interface ReceivedFile {
  bytes: Buffer
}

/**
 * Reads a multipart body that must hold exactly one file part named `field` and
 * nothing else, of at most `maxBytes`. Returns its bytes (at most `maxBytes`).
 */
export async function receiveSingleFile(
  ctx: HttpContext,
  options: {
    field: string
    maxBytes: number
    tooLarge: string
    /** Runs once the fields are known, before they are checked (e.g. a merchant selector). */
    beforeFieldChecks?: () => Promise<void>
  }
): Promise<ReceivedFile> {
  const { field, maxBytes, tooLarge } = options
  const multipart = ctx.request.is(['multipart']) ? ctx.request.multipart : undefined
  if (!multipart) throw ApiError.field(field, `The ${field} field is required.`)

  const directory = await mkdtemp(join(tmpdir(), 'upload-'))
  const target = join(directory, 'file')
  let fileParts = 0
  try {
    multipart.onFile('*', {}, async (part, reportChunk) => {
      const keep = part.name === field && fileParts === 0
      if (part.name === field) fileParts += 1
      // reportChunk counts bytes against the `limit` below and aborts past it.
      const counted = async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          await reportChunk(chunk)
          yield chunk
        }
      }
      await pipeline(part, counted, keep ? createWriteStream(target, { mode: 0o600 }) : discard())
    })
    try {
      await multipart.process({ limit: maxBytes + 1, maxFields: MAX_PARTS })
    } catch (error) {
      const code = (error as { code?: string; message?: string })?.code
      if (
        code === 'E_REQUEST_ENTITY_TOO_LARGE' &&
        /entity too large/.test(String((error as Error).message))
      ) {
        throw ApiError.field(field, tooLarge)
      }
      throw ApiError.field(field, 'The multipart body is malformed.')
    }

    await options.beforeFieldChecks?.()
    const errors: FieldErrors = {}
    const body = ctx.request.body()
    for (const name of Object.keys(body)) {
      if (name !== field) errors[name] = [`The ${name} field is not allowed.`]
    }
    if (fileParts === 0) {
      errors[field] = [
        Object.hasOwn(body, field)
          ? `The ${field} field must be a file.`
          : `The ${field} field is required.`,
      ]
    } else if (fileParts > 1 || Array.isArray(body[field])) {
      errors[field] = [`Send exactly one ${field}.`]
    }
    if (Object.keys(errors).length > 0) throw ApiError.validation(errors)
    return { bytes: await readFile(target) }
  } finally {
    await rm(directory, { recursive: true, force: true })
  }
}

function discard() {
  return new Writable({
    write(_chunk, _encoding, callback) {
      callback()
    },
  })
}
