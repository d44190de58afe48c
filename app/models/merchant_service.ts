import { MerchantServiceSchema } from '#database/schema'
import { belongsTo } from '@adonisjs/lucid/orm'
import type { BelongsTo } from '@adonisjs/lucid/types/relations'
import Service from '#models/service'

/** A service assigned to a merchant, with the assignment's own activation and environment. */
export default class MerchantService extends MerchantServiceSchema {
  @belongsTo(() => Service)
  declare service: BelongsTo<typeof Service>
}
