import { OperatorCommand } from '#console/operator_command'
import { pruneExpiredCredentials } from '#services/sessions/expired_credentials'

export default class AuthPrune extends OperatorCommand {
  static commandName = 'auth:prune'
  static description =
    'Delete expired PATs, machine tokens and one-time proofs (safe to run concurrently)'

  protected async execute(stop: AbortSignal) {
    return pruneExpiredCredentials({ signal: stop })
  }
}
