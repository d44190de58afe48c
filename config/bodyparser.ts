import { defineConfig } from '@adonisjs/core/bodyparser'

/*
| Bodies are small JSON documents (logos are the one multipart exception).
| Empty strings are kept as they are: validators decide what "" means per field.
*/
const bodyParserConfig = defineConfig({
  allowedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
  form: {
    convertEmptyStringsToNull: false,
    limit: '64kb',
    types: ['application/x-www-form-urlencoded'],
  },
  json: {
    convertEmptyStringsToNull: false,
    limit: '64kb',
    strict: true,
    types: ['application/json', 'application/vnd.api+json'],
  },
  multipart: {
    autoProcess: true,
    convertEmptyStringsToNull: false,
    processManually: [],
    limit: '3mb',
    types: ['multipart/form-data'],
  },
})

export default bodyParserConfig
