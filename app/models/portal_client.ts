import { PortalClientSchema } from '#database/schema'
import { column } from '@adonisjs/lucid/orm'

/** The Portal application's credentials: client id, scrypt hash of its secret, allowed origins. */
export default class PortalClient extends PortalClientSchema {
  @column({ prepare: (origins: string[]) => JSON.stringify(origins) })
  declare allowedOrigins: string[]
}
