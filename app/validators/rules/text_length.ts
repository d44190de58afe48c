/*
| Text bounds as the contract and PostgreSQL's varchar(n) count them: characters
| (code points). VineJS's minLength/maxLength count UTF-16 units, so an emoji would
| count twice and a 51-emoji value would be refused by a "max 100" rule.
*/
import vine from '@vinejs/vine'

export const characters = (value: string) => {
  let count = 0
  // eslint-disable-next-line @typescript-eslint/naming-convention -- only counted
  for (const _ of value) count += 1
  return count
}

/** Between `min` and `max` characters (code points, not UTF-16 units). */
export const lengthBetween = vine.createRule<{ min: number; max: number }>(
  (value, options, field) => {
    if (typeof value !== 'string') return
    const length = characters(value)
    if (length < options.min || length > options.max) {
      field.report(
        options.min === 1
          ? `The ${field.name} field must not be empty and must have at most ${options.max} characters.`
          : `The ${field.name} field must have between ${options.min} and ${options.max} characters.`,
        'length',
        field
      )
    }
  },
  {
    // JSON Schema's minLength/maxLength count characters (code points) too.
    toJSONSchema: (schema, { min, max }) => {
      schema.minLength = min
      schema.maxLength = max
    },
  }
)

/** A string of `min` to `max` characters. */
export const textOfLength = (min: number, max: number) =>
  vine.string().use(lengthBetween({ min, max }))
