/*
| Receiving POST /portal/merchant/logo's multipart body (portal-api.md › Merchant and
| logo: multipart field `file` only, max 2,048 KB; extra fields and oversize are 422).
| The route is in config/bodyparser.ts `processManually`, so nothing is read before
| authentication and the role check, and the body is read here, streamed
| (multipart_stream.ts, which also says why busboy and not `request.multipart`); the
| text fields become the request body (multipart_fields.ts). This file holds the
| contract's checks: exactly one `file` part and nothing else.
*/
import { rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { HttpContext } from '@adonisjs/core/http'
import ApiError, { type FieldErrors } from '#exceptions/api_error'
import { baseName } from '#http/multipart_fields'
import { readParts } from '#http/multipart_stream'
import { newUploadFolder } from '#http/upload_folders'
import type { FileOnDisk } from '#support/file_bytes'

/**
 * The `Content-Disposition` of a part read as a file, as the OpenAPI document states
 * it: a `filename` (or RFC 5987 `filename*`) parameter with a value. A part without
 * one is a text value to the multipart parser (busboy reads it as text, cut at 16 KB:
 * multipart_stream.ts), never an image, so it is refused as "not a file".
 */
export const FILE_PART_DISPOSITION = ';\\s*filename\\*?=\\s*(?:"[^"]+"|[^\\s";]+)'

/**
 * Reads a multipart body that must hold exactly one file part named `field` and
 * nothing else, of at most `maxBytes`, into a private temporary file in a directory of
 * its own (where `use` may write files beside it); calls `use` with it and returns what
 * `use` returns. The directory is removed when `use` settles.
 */
export async function receiveSingleFile<T>(
  ctx: HttpContext,
  options: {
    field: string
    maxBytes: number
    tooLarge: string
    /** Runs once the fields are known, before they are checked (e.g. a merchant selector). */
    beforeFieldChecks?: () => Promise<void>
  },
  use: (file: FileOnDisk) => Promise<T>
): Promise<T> {
  const { field } = options
  if (!ctx.request.is(['multipart'])) throw ApiError.field(field, `The ${field} field is required.`)

  const directory = await newUploadFolder()
  try {
    const target = join(directory, 'file')
    const received = await readParts(ctx.request.request, { ...options, target })
    // The text fields are the request body, as the body parser would have made them
    // (`a[b]` nested, repeated names as arrays), for the checks that read it.
    ctx.request.setInitialBody(received.fields)
    await options.beforeFieldChecks?.()

    const errors: FieldErrors = Object.create(null)
    let otherValuesOfField = 0
    for (const name of received.otherParts) {
      const base = baseName(name)
      if (base === field) otherValuesOfField += 1
      else errors[base] = [`The ${base} field is not allowed.`]
    }
    if (received.files === 0) {
      errors[field] = [
        otherValuesOfField > 0
          ? `The ${field} field must be a file.`
          : `The ${field} field is required.`,
      ]
    } else if (received.files > 1 || otherValuesOfField > 0) {
      errors[field] = [`Send exactly one ${field}.`]
    }
    if (Object.keys(errors).length > 0) throw ApiError.validation(errors)
    const { size } = await stat(target)
    return await use({ path: target, size })
  } finally {
    await rm(directory, { recursive: true, force: true })
  }
}
