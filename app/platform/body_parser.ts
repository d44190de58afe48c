/*
| The framework's body parser, made once per process. It keeps nothing of a request
| (only its configuration and the parser options prepared from it), and making it
| through the container on every request resolved its dependencies and prepared
| those options again each time.
*/
import app from '@adonisjs/core/services/app'
import BodyParserMiddleware from '@adonisjs/core/bodyparser_middleware'

let parser: Promise<BodyParserMiddleware> | undefined

export function bodyParser(): Promise<BodyParserMiddleware> {
  parser ??= app.container.make(BodyParserMiddleware)
  return parser
}
