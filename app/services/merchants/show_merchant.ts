/*
| portal-api.md › Merchant resource: the authenticated user's merchant, its assigned
| services (from `merchant:service`) and its logo URL.
*/
import db from '@adonisjs/lucid/services/db'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import Merchant from '#models/merchant'
import type { Actor } from '#auth/actor'
import { currentLogoUrl } from '#services/merchants/logo_storage'

/** One of the merchant's services, as servicesOf reads it. */
export interface MerchantServiceItem {
  id: number
  code: string
  type: string
  isActive: boolean
  isProduction: boolean
}

/** What showMerchant and updateMerchant return for the Merchant resource. */
export interface MerchantView {
  merchant: Merchant
  services: MerchantServiceItem[]
  logoUrl: string | null
}

/**
 * The merchant's services, by service id. An item is active only when both the
 * service and its assignment are; `is_production` is the assignment's own flag.
 */
export async function servicesOf(
  merchantId: number,
  client: QueryClientContract = db.connection()
): Promise<MerchantServiceItem[]> {
  const rows: Array<{
    id: number
    code: string
    type: string
    service_active: boolean
    assignment_active: boolean
    is_production: boolean
  }> = await client
    .from('merchant_services as ms')
    .join('services as s', 's.id', 'ms.service_id')
    .where('ms.merchant_id', merchantId)
    .orderBy('s.id', 'asc')
    .select(
      's.id',
      's.code',
      's.type',
      's.is_active as service_active',
      'ms.is_active as assignment_active',
      'ms.is_production'
    )
  return rows.map((row) => ({
    id: Number(row.id),
    code: row.code,
    type: row.type,
    isActive: row.service_active && row.assignment_active,
    isProduction: row.is_production,
  }))
}

/** GET /portal/merchant */
export async function showMerchant(actor: Actor & { merchantId: number }): Promise<MerchantView> {
  const merchant = await Merchant.findOrFail(actor.merchantId)
  const [services, logoUrl] = await Promise.all([
    servicesOf(merchant.id),
    currentLogoUrl(merchant.id, merchant.logoPath),
  ])
  return { merchant, services, logoUrl }
}
