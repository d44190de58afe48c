/*
| portal-api.md › Merchant and logo, PATCH /portal/merchant: the supplied fields
| change, the others stay; the update and its audit record commit together, under the
| merchant row lock, with the caller re-checked as an active administrator.
*/
import db from '@adonisjs/lucid/services/db'
import Merchant from '#models/merchant'
import type { UserActor } from '#auth/actor'
import { audit } from '#services/audit/audit_trail'
import { ensureActorStillAdministrator } from '#services/team/team_locks'
import type { MerchantUpdate } from '#validators/merchant'
import { showMerchant, type MerchantView } from '#services/merchants/show_merchant'

const COLUMNS = {
  name: 'name',
  contact_person: 'contactPerson',
  email: 'email',
  dial_code: 'dialCode',
  phone: 'phone',
  address: 'address',
  website: 'website',
} as const

export async function updateMerchant(
  actor: UserActor,
  input: MerchantUpdate
): Promise<MerchantView> {
  await db.transaction(async (trx) => {
    const merchant = await Merchant.query({ client: trx })
      .where('id', actor.merchantId)
      .forUpdate()
      .firstOrFail()
    // Under the merchant lock that team mutations take: a demotion that committed
    // since authentication wins (403).
    await ensureActorStillAdministrator(trx, actor)
    const changed: string[] = []
    for (const [field, attribute] of Object.entries(COLUMNS) as Array<
      [keyof typeof COLUMNS, (typeof COLUMNS)[keyof typeof COLUMNS]]
    >) {
      const value = input[field]
      if (value === undefined || merchant[attribute] === value) continue
      merchant[attribute] = value as never
      changed.push(field)
    }
    if (changed.length > 0) await merchant.save()
    // Field names only: the values are in the merchant row itself.
    await audit(trx, actor, {
      action: 'merchant.update',
      outcome: 'success',
      target: { type: 'merchant', id: merchant.id },
      metadata: { fields: changed },
    })
  })
  return showMerchant(actor)
}
