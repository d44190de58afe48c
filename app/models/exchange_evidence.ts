import { ExchangeEvidenceSchema } from '#database/schema'
import { column } from '@adonisjs/lucid/orm'

/** One recorded exchange behind a transaction's history; ULID primary key. */
export default class ExchangeEvidence extends ExchangeEvidenceSchema {
  static table = 'exchange_evidence'
  static selfAssignPrimaryKey = true

  @column({ isPrimary: true })
  declare id: string
}
