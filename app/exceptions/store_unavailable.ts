/*
| Which failures mean "the logo store is not there right now" (503 SERVICE_UNAVAILABLE)
| rather than a bug. Drive wraps every failure of a disk's write in E_CANNOT_WRITE_FILE:
| an S3 call refused, failed by the store (5xx) or past its deadline (config/drive.ts
| S3_CALL_LIMITS), or a local disk that is full. Reads and removals of logos never
| fail a request (app/services/merchants/logo_storage.ts). Pure.
*/
import { errors } from 'flydrive'

export function isStoreUnavailable(error: unknown): boolean {
  return error instanceof errors.E_CANNOT_WRITE_FILE
}
