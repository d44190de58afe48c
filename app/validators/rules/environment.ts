/* Collections and reporting scope (portal-api.md › Collections): `test` or `live`, case-sensitive. */
import vine from '@vinejs/vine'

export const ENVIRONMENTS = ['test', 'live'] as const
export type Environment = (typeof ENVIRONMENTS)[number]

export const environmentField = () => vine.enum(ENVIRONMENTS)
