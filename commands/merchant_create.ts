import { flags } from '@adonisjs/core/ace'
import { OperatorCommand } from '#console/operator_command'
import { createMerchantInput } from '#validators/operator'
import { createMerchant } from '#services/merchants/create_merchant'

export default class MerchantCreate extends OperatorCommand {
  static commandName = 'merchant:create'
  static description = 'Create a merchant; prints {id, reference_id}'

  @flags.string({ description: 'Business name (1-150)' }) declare name: string
  @flags.string({ description: 'Business contact email' }) declare email: string
  @flags.string({ description: 'ISO 4217 currency code', default: 'PHP' }) declare currency: string
  @flags.string({ description: 'Contact person (1-100)' }) declare contactPerson?: string
  @flags.boolean({ description: 'Production merchant' }) declare production?: boolean
  @flags.boolean({ description: 'Create inactive' }) declare inactive?: boolean

  protected async execute() {
    const input = await createMerchantInput.validate({
      name: this.name,
      email: this.email,
      currency: this.currency,
      contact_person: this.contactPerson,
    })
    const merchant = await createMerchant({
      name: input.name,
      email: input.email,
      currency: input.currency,
      contactPerson: input.contact_person,
      isProduction: this.production === true,
      isActive: this.inactive !== true,
    })
    return { id: merchant.id, reference_id: merchant.referenceId }
  }
}
