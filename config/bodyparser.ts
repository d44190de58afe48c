import { defineConfig } from '@adonisjs/core/bodyparser'

/*
| Bodies are small JSON documents (logos are the one multipart exception).
| Empty strings are kept as they are: validators decide what "" means per field.
| Whitespace is kept too: app/validators/rules/input.ts trims every string except
| passwords and integration key values (the parser's default would trim those).
*/
const bodyParserConfig = defineConfig({
  allowedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
  form: {
    convertEmptyStringsToNull: false,
    trimWhitespaces: false,
    limit: '64kb',
    types: ['application/x-www-form-urlencoded'],
  },
  json: {
    convertEmptyStringsToNull: false,
    trimWhitespaces: false,
    limit: '64kb',
    strict: true,
    types: ['application/json', 'application/vnd.api+json'],
  },
  multipart: {
    autoProcess: true,
    convertEmptyStringsToNull: false,
    trimWhitespaces: false,
    processManually: [],
    limit: '3mb',
    types: ['multipart/form-data'],
  },
})

export default bodyParserConfig
