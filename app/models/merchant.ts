import { MerchantSchema } from '#database/schema'
import { beforeCreate, hasMany } from '@adonisjs/lucid/orm'
import type { HasMany } from '@adonisjs/lucid/types/relations'
import MerchantService from '#models/merchant_service'
import { newReferenceId } from '#support/reference_id'

export default class Merchant extends MerchantSchema {
  @hasMany(() => MerchantService)
  declare serviceAssignments: HasMany<typeof MerchantService>

  @beforeCreate()
  static assignReferenceId(merchant: Merchant) {
    merchant.referenceId ??= newReferenceId('mer')
  }
}
