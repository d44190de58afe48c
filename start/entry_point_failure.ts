/*
| What an entry point (bin/server.ts, bin/console.ts) prints for the error that stopped
| it, always with exit status 1. A configuration error is an operator's to fix: one
| line per problem, `configuration error: <problem>`, with no stack, source excerpt or
| colour. Any other error is unexpected: a terminal gets AdonisJS's pretty print with
| its stack, any other output the plain stack without colour codes.
*/
import { inspect } from 'node:util'
import { configurationErrorProblems, configurationErrorText } from '#start/configuration_check'

export async function reportEntryPointFailure(
  error: unknown,
  prettyPrintError: (error: unknown) => Promise<void>
) {
  process.exitCode = 1
  const problems = configurationErrorProblems(error)
  if (problems) {
    process.stderr.write(configurationErrorText(problems))
    return
  }
  if (process.stderr.isTTY) {
    await prettyPrintError(error)
    return
  }
  process.stderr.write(`${inspect(error, { colors: false })}\n`)
}
