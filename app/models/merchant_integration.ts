import { MerchantIntegrationSchema } from '#database/schema'

/**
 * A merchant's integration settings: the two write-only keys (encrypted), the
 * webhook URL and the `x_token` fallback. Keys are never serialized from here;
 * IntegrationKeysTransformer exposes presence only.
 */
export default class MerchantIntegration extends MerchantIntegrationSchema {}
