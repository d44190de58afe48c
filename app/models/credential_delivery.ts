import { CredentialDeliverySchema } from '#database/schema'
import { column } from '@adonisjs/lucid/orm'

/** A pending one-time handover of a machine client secret (encrypted, five minutes). */
export default class CredentialDelivery extends CredentialDeliverySchema {
  static selfAssignPrimaryKey = true

  @column({ isPrimary: true })
  declare id: string
}
