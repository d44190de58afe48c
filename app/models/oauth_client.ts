import { OauthClientSchema } from '#database/schema'
import type { AccessToken } from '@adonisjs/auth/access_tokens'
import { MachineAccessTokensProvider } from '#auth/machine_access_tokens'

/**
 * An OAuth client. Only `machine` clients (confidential, client-credentials only)
 * are issued by the Portal and may obtain machine tokens; the other kinds are
 * framework, personal-access, password or ecosystem (Portal application) clients.
 */
export default class OauthClient extends OauthClientSchema {
  static accessTokens = MachineAccessTokensProvider.forModel(OauthClient)
  declare currentAccessToken?: AccessToken

  /** A confidential client-credentials client the Portal manages. */
  get isMachineClient() {
    return this.kind === 'machine' && this.secretHash !== null
  }

  get isRevoked() {
    return this.revokedAt !== null
  }
}
