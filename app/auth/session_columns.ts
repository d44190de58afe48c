/*
| The columns of the signed-in user and merchant that one Portal token read returns
| (portal_access_tokens.ts), as plain values, and how they are selected and picked
| from the joined row.
*/
import type { LucidModel } from '@adonisjs/lucid/types/model'

/** The signed-in user's session columns as plain values (named as on the model). */
export interface SessionUser {
  id: number
  referenceId: string
  firstName: string
  lastName: string
  username: string
  email: string
  pendingEmail: string | null
  pendingEmailExpiresAt: Date | null
  emailVerifiedAt: Date | null
  role: number
  isActive: boolean
  merchantId: number | null
}

/** The user's merchant's session columns as plain values. */
export interface SessionMerchant {
  id: number
  referenceId: string
  name: string
  isActive: boolean
  logoPath: string | null
}

/**
 * The owner's and merchant's columns a Portal request reads, by property: the checks
 * of authentication, the Profile (GET /portal/me) and the logo path. Not every
 * column: each one more in the joined row is parsed (and a timestamp made a Date) by
 * the driver on every request, and the profile showed the wide row costing as much
 * as the route's own statement. They stay plain values, never model instances: a
 * model (a proxy whose every attribute passes its column definition) cost more than
 * the rest of `GET /portal/me`'s JavaScript.
 */
const SESSION_USER_COLUMNS = {
  id: 'id',
  referenceId: 'reference_id',
  firstName: 'first_name',
  lastName: 'last_name',
  username: 'username',
  email: 'email',
  pendingEmail: 'pending_email',
  pendingEmailExpiresAt: 'pending_email_expires_at',
  emailVerifiedAt: 'email_verified_at',
  role: 'role',
  isActive: 'is_active',
  merchantId: 'merchant_id',
} as const satisfies Record<keyof SessionUser, string>
const SESSION_MERCHANT_COLUMNS = {
  id: 'id',
  referenceId: 'reference_id',
  name: 'name',
  isActive: 'is_active',
  logoPath: 'logo_path',
} as const satisfies Record<keyof SessionMerchant, string>

type AliasedColumns = [alias: string, key: string][]

/**
 * `columns` (by the key each gets in a picked row) aliased `<prefix><column>`, and
 * their select list from table alias `table`.
 */
function aliased(table: string, prefix: string, columns: Record<string, string>) {
  const entries = Object.entries(columns)
  return {
    pairs: entries.map(([key, column]): [string, string] => [`${prefix}${column}`, key]),
    select: entries.map(([, column]) => `${table}."${column}" as "${prefix}${column}"`).join(', '),
  }
}

export const sessionUser = aliased('u', 'u_', SESSION_USER_COLUMNS)
export const sessionMerchant = aliased('m', 'm_', SESSION_MERCHANT_COLUMNS)

let loginMerchantColumns: ReturnType<typeof aliased> | undefined
/** Every column of the merchant model by its name (login hydrates its merchant), once. */
export function merchantColumnsOf(merchant: LucidModel) {
  loginMerchantColumns ??= aliased(
    'm',
    'm_',
    Object.fromEntries(
      [...merchant.$columnsDefinitions.values()].map(({ columnName }) => [columnName, columnName])
    )
  )
  return loginMerchantColumns
}

export function pick<Row = Record<string, any>>(
  row: Record<string, any>,
  columns: AliasedColumns
): Row {
  const picked: Record<string, any> = {}
  for (const [alias, key] of columns) picked[key] = row[alias]
  return picked as Row
}
