/*
| Operator-side merchant management (merchant:create, merchant:service).
*/
import { normalizeIdentity } from '#support/identity'
import db from '@adonisjs/lucid/services/db'
import ApiError from '#exceptions/api_error'
import Currency from '#models/currency'
import Merchant from '#models/merchant'
import MerchantService from '#models/merchant_service'
import Service from '#models/service'

export async function createMerchant(input: {
  name: string
  email: string
  currency: string
  contactPerson?: string
  isProduction: boolean
  isActive: boolean
}) {
  if (!(await Currency.find(input.currency))) {
    throw ApiError.field('currency', `${input.currency} is not in the ISO 4217 catalogue.`)
  }
  return Merchant.create({
    name: input.name,
    email: normalizeIdentity(input.email),
    currency: input.currency,
    contactPerson: input.contactPerson ?? null,
    isProduction: input.isProduction,
    isActive: input.isActive,
  })
}

/** Creates the service when its code is new, then assigns (or re-flags) it for the merchant. */
export async function assignService(input: {
  merchantId: number | string
  code: string
  type: string
  isActive: boolean
  isProduction: boolean
}) {
  return db.transaction(async (trx) => {
    const merchant = await Merchant.find(input.merchantId, { client: trx })
    if (!merchant) throw ApiError.notFound(`Merchant ${input.merchantId} does not exist.`)
    const service = await Service.firstOrCreate(
      { code: input.code },
      { type: input.type, isActive: true },
      { client: trx }
    )
    if (service.type !== input.type) {
      throw ApiError.conflict('CONFLICT', `Service ${input.code} exists with type ${service.type}.`)
    }
    const assignment = await MerchantService.updateOrCreate(
      { merchantId: merchant.id, serviceId: service.id },
      { isActive: input.isActive, isProduction: input.isProduction },
      { client: trx }
    )
    return { merchant, service, assignment }
  })
}
