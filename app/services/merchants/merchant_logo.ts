/*
| portal-api.md › Merchant and logo: POST and DELETE /portal/merchant/logo.
| The new object is written before the transaction that points the merchant at it
| (and removed again if that transaction fails); the object it replaces is removed
| only after the commit, so a failure never leaves the merchant pointing at nothing.
*/
import db from '@adonisjs/lucid/services/db'
import Merchant from '#models/merchant'
import type { Actor, UserActor } from '#auth/actor'
import { audit } from '#services/audit/audit_trail'
import { ensureActorStillAdministrator } from '#services/team/team_locks'
import type { NormalizedLogo } from '#services/merchants/logo_image'
import { newLogoKey, removeLogo, urlOfLogo, writeLogo } from '#services/merchants/logo_storage'

type MerchantActor = Actor & { merchantId: number }

/** Points the merchant's logo at `key` (or none) in one audited transaction; returns the old key. */
async function replaceLogoKey(
  actor: MerchantActor,
  key: string | null,
  action: string,
  metadata: Record<string, unknown>
): Promise<string | null> {
  return db.transaction(async (trx) => {
    const merchant = await Merchant.query({ client: trx })
      .where('id', actor.merchantId)
      .forUpdate()
      .firstOrFail()
    // A user is re-checked under the merchant lock team mutations take (a demotion
    // committed since authentication wins); operator commands act as the system.
    if (actor.kind === 'user') await ensureActorStillAdministrator(trx, actor as UserActor)
    const previous = merchant.logoPath
    if (previous !== key) {
      merchant.logoPath = key
      await merchant.save()
    }
    await audit(trx, actor, {
      action,
      outcome: 'success',
      target: { type: 'merchant', id: merchant.id },
      metadata: { ...metadata, replaced: previous !== null },
    })
    return previous
  })
}

/** Stores an accepted logo as the merchant's logo; returns its URL. */
export async function uploadLogo(actor: MerchantActor, logo: NormalizedLogo): Promise<string> {
  const key = newLogoKey(actor.merchantId, logo.format)
  await writeLogo(key, logo)
  let previous: string | null
  try {
    previous = await replaceLogoKey(actor, key, 'merchant.logo.update', {
      format: logo.format,
      width: logo.width,
      height: logo.height,
      bytes: logo.size,
    })
  } catch (error) {
    await removeLogo(key)
    throw error
  }
  if (previous) await removeLogo(previous)
  return urlOfLogo(key)
}

/** Removes the merchant's logo; nothing to remove is not an error. */
export async function deleteLogo(actor: MerchantActor): Promise<void> {
  const previous = await replaceLogoKey(actor, null, 'merchant.logo.delete', {})
  if (previous) await removeLogo(previous)
}
