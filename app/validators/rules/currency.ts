/*
| The `currency` of collection filters and reporting (portal-api.md › Collections):
| three upper-case letters, then the supported currency catalogue (422 unsupported,
| 503 unreadable). Validators import no services: the controller hands in the
| catalogue lookup (app/services/collections/transactions/currency_catalogue.ts).
|
| The lookup starts as soon as the query holds a well-formed currency, whatever the
| other fields hold, and runs concurrently with the validation and then the read. Its
| verdict joins the request's own outcome:
| - a 422 of the catalogue and a 422 of the request (other fields, a chart's bucket
|   limit) are one 422 naming every field;
| - a 422 of the request wins over an unreadable catalogue (503): a request that is
|   wrong whatever the catalogue says is not answered "try again later";
| - otherwise the catalogue's 422 or 503 comes first, then the request's outcome.
*/
import vine from '@vinejs/vine'
import ApiError, { type FieldErrors } from '#exceptions/api_error'
import { CURRENCY_CODE_PATTERN } from '#models/collections_vocabulary'
import { matches, type Pattern } from '#validators/rules/pattern'

export const CURRENCY_CODE: Pattern = {
  regex: CURRENCY_CODE_PATTERN,
  must: 'be three upper-case letters (an ISO 4217 code such as PHP)',
}

export const currencyField = () => vine.string().use(matches(CURRENCY_CODE))

/** The catalogue check of one well-formed code: resolves, or rejects with its 422 or 503. */
export type CatalogueLookup = (code: string) => Promise<void>

/**
 * Validates a query whose `currency` (required or optional; `sent`, as parsed) the
 * catalogue must accept. Resolves with the input and, when a currency was given, the
 * catalogue's pending verdict, for `afterCatalogue`; rejects with the validation's
 * outcome joined to it. The HTTP side is app/http/request_input.ts.
 */
export async function validateWithCatalogue<Data>(
  sent: unknown,
  validate: () => Promise<Data>,
  lookup: CatalogueLookup
) {
  const code = typeof sent === 'string' ? sent.trim() : undefined
  const catalogue = code !== undefined && CURRENCY_CODE.regex.test(code) ? lookup(code) : undefined
  try {
    return { input: await validate(), catalogue }
  } catch (error) {
    if (catalogue === undefined) throw error
    throw await beside(catalogue, error)
  }
}

/**
 * `work`'s result once `catalogue` (pending, or nothing when no currency was given)
 * has passed; both run concurrently, and a failure of either is answered as the
 * header says.
 */
export async function afterCatalogue<T>(
  catalogue: Promise<void> | undefined,
  work: Promise<T>
): Promise<T> {
  if (catalogue === undefined) return work
  const [checked, done] = await Promise.allSettled([catalogue, work])
  if (checked.status === 'rejected') {
    throw joined(checked.reason, done.status === 'rejected' ? done.reason : undefined)
  }
  if (done.status === 'rejected') throw done.reason
  return done.value
}

/** The error answering `failed` (the request's own failure) once the catalogue has spoken. */
async function beside(catalogue: Promise<void>, failed: unknown): Promise<unknown> {
  try {
    await catalogue
    return failed
  } catch (refused) {
    return joined(refused, failed)
  }
}

function joined(refused: unknown, failed: unknown): unknown {
  if (!isFieldError(failed)) return refused
  if (isFieldError(refused)) {
    return ApiError.validation({ ...failed.fieldErrors, ...refused.fieldErrors })
  }
  return refused instanceof ApiError && refused.status === 503 ? failed : refused
}

function isFieldError(error: unknown): error is ApiError & { fieldErrors: FieldErrors } {
  return error instanceof ApiError && error.status === 422 && error.fieldErrors !== undefined
}
