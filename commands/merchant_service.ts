import { flags } from '@adonisjs/core/ace'
import { OperatorCommand } from '#console/operator_command'
import { assignServiceInput } from '#validators/operator'
import { assignService } from '#services/merchants/create_merchant'

export default class MerchantServiceAssign extends OperatorCommand {
  static commandName = 'merchant:service'
  static description = 'Create a service if needed and assign it to a merchant'

  @flags.string({ description: 'Merchant id' }) declare merchant: string
  @flags.string({ description: 'Service code' }) declare code: string
  @flags.string({ description: 'Service type' }) declare type: string
  @flags.boolean({ description: 'Assignment inactive' }) declare inactive?: boolean
  @flags.boolean({ description: 'Assignment is production' }) declare production?: boolean

  protected async execute() {
    const input = await assignServiceInput.validate({
      merchant: this.merchant,
      code: this.code,
      type: this.type,
    })
    const { merchant, service, assignment } = await assignService({
      merchantId: input.merchant,
      code: input.code,
      type: input.type,
      isActive: this.inactive !== true,
      isProduction: this.production === true,
    })
    return {
      merchant_id: merchant.id,
      service: { id: service.id, code: service.code, type: service.type },
      is_active: service.isActive && assignment.isActive,
      is_production: assignment.isProduction,
    }
  }
}
