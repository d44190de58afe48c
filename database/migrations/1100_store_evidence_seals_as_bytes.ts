import { BaseSchema } from '@adonisjs/lucid/schema'
import { convertStoredSeals } from '#services/collections/history/stored_seal_format'

/**
 * Evidence seals stored as bytes in the compact format (evidence_cipher.ts;
 * docs/operations.md › Evidence storage) instead of base64 text in the application
 * encrypter's format: snapshot_ciphertext and projection_ciphertext become bytea, every
 * seal re-sealed. Outside a migration transaction, in committed batches beside the
 * running service (stored_seal_format.ts): an interrupted run keeps its progress and
 * running the migration again resumes it. down() converts back the same way.
 */
export default class extends BaseSchema {
  static disableTransactions = true

  async up() {
    this.defer(async () => {
      await convertStoredSeals('bytes')
    })
  }

  async down() {
    this.defer(async () => {
      await convertStoredSeals('text')
    })
  }
}
