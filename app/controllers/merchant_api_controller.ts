import type { MachineSession } from '#middleware/machine_auth_middleware'

/**
 * The merchant integration API itself is outside the Portal contract; this one
 * read-only endpoint lets integrators verify machine credentials end to end.
 */
export default class MerchantApiController {
  /** GET /api/v1/merchant-api/whoami (machine token): the session its authentication made. */
  whoami(_input: undefined, machine: MachineSession) {
    return machine
  }
}
