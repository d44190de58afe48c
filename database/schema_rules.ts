import { type SchemaRules } from '@adonisjs/lucid/types/schema_generator'

/*
| int8 columns are parsed as JS numbers (config/database.ts): identifiers stay far
| below 2^53 and the contract serializes them as JSON integers.
*/
export default {
  types: {
    bigint: { tsType: 'number', decorators: [{ name: '@column' }] },
  },
  primaryKey: (_table, primaryKeys, columns) => {
    const [name] = primaryKeys
    if (primaryKeys.length !== 1 || columns[name]?.type !== 'bigint') return undefined
    return {
      columnName: name,
      columnInfo: {
        tsType: 'number',
        decorators: [{ name: '@column', args: { isPrimary: true } }],
      },
    }
  },
} satisfies SchemaRules
