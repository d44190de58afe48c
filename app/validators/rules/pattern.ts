/*
| A string rule by regular expression whose message says the rule in words, where
| VineJS's `regex` says only "The <field> field format is invalid". The JSON Schema
| keeps the pattern, as `regex` does (the OpenAPI document is generated from it).
*/
import vine from '@vinejs/vine'

export interface Pattern {
  regex: RegExp
  /** What the value must be, after "The <field> field must": `be three upper-case letters`. */
  must: string
}

export const matches = vine.createRule<Pattern>(
  (value, { regex, must }, field) => {
    if (typeof value === 'string' && !regex.test(value)) {
      field.report(`The ${field.name} field must ${must}.`, 'pattern', field)
    }
  },
  {
    toJSONSchema: (schema, { regex }) => {
      schema.pattern = regex.source
    },
  }
)

/** Printable on one line: no control character (line breaks, tabs, NUL). */
export const SINGLE_LINE: Pattern = {
  regex: /^[^\p{Cc}]*$/u,
  must: 'not contain control characters such as line breaks or tabs',
}
