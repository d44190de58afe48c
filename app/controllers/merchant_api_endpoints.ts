/*
| The merchant integration API, the endpoint of MerchantApiController: machine tokens
| only (its API limit, per machine client, is taken by machine authentication once
| the client is known). One read-only endpoint to verify machine credentials end to
| end.
*/
import { schema, type Static } from '#openapi/json_schema'
import { ok } from '#openapi/components'
import { endpointsOf, machineStack } from '#http/endpoint'
import { MERCHANT_API_SCOPE } from '#config/oauth'

/** Whom a machine token acts for, as MerchantApiController answers. */
export const WhoAmI = schema.object({
  merchant_reference_id: schema.string(),
  oauth_client_id: schema.integer(),
  scopes: schema.array(schema.string()),
  expires_at: schema.nullable(schema.timestamp()),
})
export type WhoAmI = Static<typeof WhoAmI>

const MerchantApiController = () => import('#controllers/merchant_api_controller')

export const merchantApiEndpoints = endpointsOf(MerchantApiController, {
  whoami: {
    method: 'get',
    path: '/api/v1/merchant-api/whoami',
    name: 'merchant_api.whoami',
    stack: machineStack(MERCHANT_API_SCOPE),
    operationId: 'merchantApiWhoami',
    tag: 'Merchant integration API',
    summary: 'Who a machine token acts for',
    description:
      'Machine tokens only: the merchant and client a token acts for (an end-to-end check of machine credentials). Merchant ownership, business activation and the rotation deadline are checked here, not at token grant.',
    parsesBody: false,
    responses: {
      200: {
        description: 'The acting merchant and client.',
        schema: ok(WhoAmI),
      },
    },
    cacheControl: 'no-store',
  },
})
