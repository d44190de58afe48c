/*
| The merchant integration API, the endpoint of MerchantApiController: machine tokens
| only (its API limit, per machine client, is taken by machine authentication once
| the client is known). One read-only endpoint to verify machine credentials end to
| end.
*/
import { endpointsOf } from '#http/endpoint'
import { machineStack } from '#http/stacks'
import { MERCHANT_API_SCOPE } from '#config/oauth'
import { WhoAmI } from '#shapes/machine_access'
import WhoAmITransformer from '#transformers/who_am_i_transformer'

export const merchantApiEndpoints = endpointsOf({
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
    response: {
      description: 'The acting merchant and client.',
      data: WhoAmI,
      transformer: WhoAmITransformer,
      message: 'Success',
    },
  },
})
