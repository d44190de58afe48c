/*
| Demo data for the merchant area (`node ace demo:seed`): a second service beside the
| one demo_data.ts assigns, and a logo drawn here and stored through the same checks
| and storage as an upload. Re-running keeps an existing, readable logo.
*/
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Merchant from '#models/merchant'
import { SYSTEM_ACTOR } from '#auth/actor'
import { assignService } from '#services/merchants/create_merchant'
import { normalizeLogo } from '#services/merchants/logo_image'
import { currentLogoUrl } from '#services/merchants/logo_storage'
import { uploadLogo } from '#services/merchants/merchant_logo'

const DEMO_LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256">
  <rect width="256" height="256" rx="48" fill="#0b5fff"/>
  <circle cx="128" cy="128" r="72" fill="#ffffff"/>
  <rect x="96" y="96" width="64" height="64" rx="12" fill="#0b5fff"/>
</svg>`

export async function seedDemoMerchantProfile(merchantId: number) {
  await assignService({
    merchantId,
    code: 'instapay',
    type: 'bank_transfer',
    isActive: true,
    isProduction: false,
  })
  const merchant = await Merchant.findOrFail(merchantId)
  if (await currentLogoUrl(merchant.id, merchant.logoPath)) return
  // Only here: every ace command loads this module (demo:seed), and a command that
  // draws no logo must not need sharp's native binaries.
  const { default: sharp } = await import('sharp')
  const png = await sharp(Buffer.from(DEMO_LOGO_SVG)).png().toBuffer()
  // As an upload arrives: a file in a private directory of its own.
  const directory = await mkdtemp(join(tmpdir(), 'demo-logo-'))
  try {
    const path = join(directory, 'file')
    await writeFile(path, png, { mode: 0o600 })
    const logo = await normalizeLogo(merchantId, { path, size: png.length })
    await uploadLogo({ ...SYSTEM_ACTOR, merchantId }, logo)
  } finally {
    await rm(directory, { recursive: true, force: true })
  }
}
