import { defineConfig } from '@adonisjs/core/bodyparser'

/*
| Bodies are small JSON documents (logos are the one multipart exception).
| Empty strings and surrounding whitespace are kept as they are: validators decide
| what "" means per field, and trimming happens in app/validators/rules/input.ts,
| which leaves passwords and integration key values untouched.
*/
const bodyParserConfig = defineConfig({
  allowedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
  form: {
    convertEmptyStringsToNull: false,
    trimWhitespaces: false,
    limit: '64kb',
    // Every parameter is read (qs keeps the first 1,000 by default and drops the rest
    // silently): the token endpoint must see a repeated or second credential wherever
    // it comes. The 64 KB limit bounds the count.
    queryString: { parameterLimit: Number.POSITIVE_INFINITY },
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
    // The logo upload streams its one file itself (app/http/single_file_upload.ts).
    processManually: ['/api/v1/portal/merchant/logo'],
    limit: '3mb',
    types: ['multipart/form-data'],
  },
})

export default bodyParserConfig
