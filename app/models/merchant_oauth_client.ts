import { MerchantOauthClientSchema } from '#database/schema'
import { beforeSave, belongsTo } from '@adonisjs/lucid/orm'
import type { BelongsTo } from '@adonisjs/lucid/types/relations'
import type { DateTime } from 'luxon'
import OauthClient from '#models/oauth_client'
import { normalizeLabel } from '#support/machine_client_label'

/** A merchant's ownership of an OAuth client; its `id` is the `{client}` route id. */
export default class MerchantOauthClient extends MerchantOauthClientSchema {
  @belongsTo(() => OauthClient)
  declare oauthClient: BelongsTo<typeof OauthClient>

  /** The label is stored normalized beside its spelling (app/support/machine_client_label.ts). */
  @beforeSave()
  static normalizeLabel(ownership: MerchantOauthClient) {
    if (ownership.$dirty.label !== undefined) {
      ownership.labelNormalized = normalizeLabel(ownership.label)
    }
  }

  /**
   * portal-api.md › Machine client metadata `is_active`: ownership active and not
   * revoked, OAuth client not revoked and an eligible machine client, and no
   * rotation deadline reached.
   */
  isUsableAt(client: OauthClient, now: DateTime): boolean {
    return (
      this.isActive &&
      this.revokedAt === null &&
      !client.isRevoked &&
      client.isMachineClient &&
      (this.rotationDeadlineAt === null || this.rotationDeadlineAt > now)
    )
  }
}
