/*
| portal-api.md › Merchant resource and Integration keys presence: the exact field
| sets. Never a secret, key, fee, settlement or provider setting.
*/
import { PortalTransformer } from '#transformers/portal_transformer'
import type { IntegrationKeysView, MerchantView } from '#shapes/merchant'

export default class MerchantTransformer extends PortalTransformer<MerchantView> {
  toObject() {
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
      services: services.map((service) => ({
        id: service.id,
        code: service.code,
        type: service.type,
        is_active: service.isActive,
        is_production: service.isProduction,
      })),
      created_at: merchant.createdAt.toUTC().toISO(),
      updated_at: merchant.updatedAt.toUTC().toISO(),
    }
  }
}

export class IntegrationKeysTransformer extends PortalTransformer<IntegrationKeysView> {
  toObject() {
    return {
      has_authentication_token: this.resource.hasAuthenticationToken,
      has_secret_key: this.resource.hasSecretKey,
      updated_at: this.resource.updatedAt?.toUTC().toISO() ?? null,
    }
  }
}
