/*
| portal-api.md › Machine clients and credential delivery: request bodies and the
| list query.
*/
import vine from '@vinejs/vine'
import { defineInput } from '#validators/rules/input'
import { paginationFields } from '#validators/rules/pagination'
import { currentPassword } from '#validators/rules/password_policy'
import { textOfLength } from '#validators/rules/text_length'
import { matches } from '#validators/rules/pattern'

/** 3-100; first an ASCII letter or digit, then ASCII letters, digits, spaces, `.`, `_`, `-`. */
const label = () =>
  vine
    .string()
    .minLength(3)
    .maxLength(100)
    .use(
      matches({
        regex: /^[A-Za-z0-9][A-Za-z0-9 ._-]*$/,
        must: 'start with an ASCII letter or digit and contain only ASCII letters, digits, spaces, ".", "_" and "-"',
      })
    )

const reason = () => textOfLength(10, 500)

/** GET /portal/merchant/machine-clients (pagination only; other fields ignored). */
export const listMachineClientsInput = defineInput({ ...paginationFields }, { strict: false })

/** POST /portal/merchant/machine-clients (strict). */
export const issueMachineClientInput = defineInput(
  { label: label(), reason: reason(), current_password: currentPassword() },
  { strict: true }
)

/** POST /portal/merchant/machine-clients/{client}/rotate (strict). JSON integers only. */
export const rotateMachineClientInput = defineInput(
  {
    label: label(),
    reason: reason(),
    current_password: currentPassword(),
    overlap_minutes: vine.number({ strict: true }).withoutDecimals().range([5, 10_080]),
  },
  { strict: true }
)

/** POST /portal/merchant/machine-clients/{client}/revoke (strict). */
export const revokeMachineClientInput = defineInput(
  { reason: reason(), current_password: currentPassword() },
  { strict: true }
)

/** POST /portal/merchant/credential-deliveries/{delivery}/consume (strict). */
export const consumeDeliveryInput = defineInput(
  { current_password: currentPassword() },
  { strict: true }
)
