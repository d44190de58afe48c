/*
| portal-api.md › Merchant resource and Integration keys presence: the exact field
| sets. Never a secret, key, fee, settlement or provider setting.
*/
import { PortalTransformer } from '#transformers/portal_transformer'
import type { IntegrationKeysPresence, Merchant, MerchantService } from '#shapes/merchant'
import type { MerchantView } from '#services/merchants/show_merchant'
import type { IntegrationKeysView } from '#services/merchants/integration_keys'
import { utcIso, utcIsoOrNull } from '#transformers/timestamps'

export default class MerchantTransformer extends PortalTransformer<MerchantView> {
  toObject(): Merchant {
    const { merchant, services, logoUrl } = this.resource
    return {
      id: merchant.id,
      reference_id: merchant.referenceId,
      name: merchant.name,
      contact_person: merchant.contactPerson,
      email: merchant.email,
      dial_code: merchant.dialCode,
      phone: merchant.phone,
      address: merchant.address,
      website: merchant.website,
      logo_url: logoUrl,
      currency: merchant.currency,
      is_active: merchant.isActive,
      is_production: merchant.isProduction,
      services: services.map((service): MerchantService => ({
        id: service.id,
        code: service.code,
        type: service.type,
        is_active: service.isActive,
        is_production: service.isProduction,
      })),
      created_at: utcIso(merchant.createdAt),
      updated_at: utcIso(merchant.updatedAt),
    }
  }
}

export class IntegrationKeysTransformer extends PortalTransformer<IntegrationKeysView> {
  toObject(): IntegrationKeysPresence {
    return {
      has_authentication_token: this.resource.hasAuthenticationToken,
      has_secret_key: this.resource.hasSecretKey,
      updated_at: utcIsoOrNull(this.resource.updatedAt),
    }
  }
}
