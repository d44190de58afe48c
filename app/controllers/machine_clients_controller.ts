import type { UserActor } from '#auth/actor'
import type { InputValue, PageRequest, PreparedOf } from '#http/endpoint'
import { listMachineClients } from '#services/machine_clients/list'
import { issueMachineClient } from '#services/machine_clients/issue'
import { rotateMachineClient } from '#services/machine_clients/rotate'
import { revokeMachineClient } from '#services/machine_clients/revoke'
import { consumeDelivery } from '#services/machine_clients/consume_delivery'
import type { machineClientsEndpoints as endpoints } from '#controllers/machine_clients_endpoints'

/**
 * portal-api.md › Machine clients and credential delivery. Mutations: Admin (403
 * before validation) and the limit are in the route's stack; then the resource, the
 * strict body, `current_password`, and the service's transaction with its audit record.
 */
export default class MachineClientsController {
  /** GET /portal/merchant/machine-clients (Both) */
  async index(_input: object, actor: UserActor, _ctx: unknown, page: PageRequest) {
    return listMachineClients(actor, page)
  }

  /** POST /portal/merchant/machine-clients (Admin) */
  async store(
    input: InputValue<typeof endpoints.store>,
    actor: UserActor,
    _ctx: unknown,
    _prepared: undefined,
    signal: AbortSignal
  ) {
    return issueMachineClient(actor, input, { signal })
  }

  /** POST /portal/merchant/machine-clients/{client}/rotate (Admin) */
  async rotate(
    input: InputValue<typeof endpoints.rotate>,
    actor: UserActor,
    _ctx: unknown,
    client: PreparedOf<typeof endpoints.rotate>,
    signal: AbortSignal
  ) {
    return rotateMachineClient(actor, client, input, { signal })
  }

  /** POST /portal/merchant/machine-clients/{client}/revoke (Admin) */
  async revoke(
    input: InputValue<typeof endpoints.revoke>,
    actor: UserActor,
    _ctx: unknown,
    client: PreparedOf<typeof endpoints.revoke>,
    signal: AbortSignal
  ) {
    return revokeMachineClient(actor, client, input, { signal })
  }

  /** POST /portal/merchant/credential-deliveries/{delivery}/consume (the issuing Admin) */
  async consume(
    input: InputValue<typeof endpoints.consume>,
    actor: UserActor,
    _ctx: unknown,
    delivery: PreparedOf<typeof endpoints.consume>,
    signal: AbortSignal
  ) {
    return consumeDelivery(actor, delivery, input, { signal })
  }
}
