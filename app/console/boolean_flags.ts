/*
| Boolean flags of the operator commands take only the forms their --help names. Ace's
| parser reads any value but `true` as false, so `history:purge --dry-run=1` ran a real
| purge. The commands therefore parse their boolean flags as text
| (operator_command.ts) and read each here, before doing anything.
*/

/** The forms a boolean flag takes, as --help shows them. */
export function booleanFlagForms(flagName: string) {
  return `--${flagName} or --${flagName}=true; off: --no-${flagName} or --${flagName}=false`
}

export class BooleanFlagError extends Error {}

/**
 * A boolean flag's value from what the parser gave: undefined when absent, false for
 * `--no-x`, the text after `=` otherwise (empty for a bare `--x`). The value itself is
 * never repeated in the message: a misplaced secret must not be echoed.
 */
export function readBooleanFlag(flagName: string, given: unknown): boolean | undefined {
  if (given === undefined || typeof given === 'boolean') return given
  if (given === '' || given === 'true') return true
  if (given === 'false') return false
  if (Array.isArray(given)) throw new BooleanFlagError(`--${flagName} is given more than once`)
  throw new BooleanFlagError(
    `--${flagName} takes no value other than true or false (${booleanFlagForms(flagName)})`
  )
}
