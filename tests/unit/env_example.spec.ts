/*
| .env.example lists every variable the service reads (issue 37 › 7): each key of
| start/env.ts's schema, and each limit's own RATE_LIMIT_<NAME>_PER_MINUTE, which the
| limiter reads by name (app/limits/limits.ts). The OpenTelemetry SDK reads its OTEL_*
| variables itself, so those may be listed without being in the schema.
|
| The schema's keys are read from the source with the TypeScript parser: importing
| start/env.ts yields the validated values merged with .env, not the schema's keys.
*/
import { readFileSync } from 'node:fs'
import ts from 'typescript'
import { test } from '@japa/runner'
import { LIMITS } from '#limits/limits'

/** The keys of the object literal passed to `Env.create(root, schema)`. */
function envSchemaKeys(source: string): string[] {
  const file = ts.createSourceFile('env.ts', source, ts.ScriptTarget.Latest)
  let keys: string[] | undefined
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      node.expression.getText(file) === 'Env.create' &&
      node.arguments[1] &&
      ts.isObjectLiteralExpression(node.arguments[1])
    ) {
      keys = node.arguments[1].properties.map((property) => {
        if (
          !property.name ||
          !(ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))
        )
          throw new Error(
            `start/env.ts: a schema entry without a plain name: ${property.getText(file)}`
          )
        return property.name.text
      })
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  if (!keys) throw new Error('start/env.ts: no Env.create(root, { ... }) schema found')
  return keys
}

/** The variables .env.example lists, each as a commented-out `# NAME=default` line. */
function exampleVariables(text: string): string[] {
  return text
    .split('\n')
    .map((line) => /^#\s*([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined)
}

const schemaKeys = envSchemaKeys(readFileSync('start/env.ts', 'utf8'))
const limitVariables = Object.values(LIMITS).map((limit) => limit.env)
const listed = exampleVariables(readFileSync('.env.example', 'utf8'))

test.group('.env.example', () => {
  test('the schema is read from start/env.ts itself', ({ assert }) => {
    assert.includeMembers(schemaKeys, ['NODE_ENV', 'APP_KEY', 'DATABASE_URL', 'SHUTDOWN_DRAIN_MS'])
    assert.deepEqual(
      envSchemaKeys(`const env = await Env.create(root, { A: Env.schema.string(), 'B_C': x })`),
      ['A', 'B_C']
    )
  })

  test('lists every variable of start/env.ts', ({ assert }) => {
    assert.deepEqual(
      schemaKeys.filter((key) => !listed.includes(key)),
      [],
      'in start/env.ts, missing from .env.example'
    )
  })

  test("lists every limit's own variable", ({ assert }) => {
    assert.deepEqual(
      limitVariables.filter((name) => !listed.includes(name)),
      [],
      'in app/limits/limits.ts, missing from .env.example'
    )
  })

  test('lists no variable the service does not read', ({ assert }) => {
    const read = new Set<string>([...schemaKeys, ...limitVariables])
    assert.deepEqual(
      listed.filter((name) => !read.has(name) && !name.startsWith('OTEL_')),
      [],
      'in .env.example, missing from start/env.ts'
    )
  })

  test('lists each variable once', ({ assert }) => {
    assert.deepEqual(
      listed.filter((name, index) => listed.indexOf(name) !== index),
      []
    )
  })
})
