import { TeamInvitationSchema } from '#database/schema'
import { column } from '@adonisjs/lucid/orm'
import { DateTime } from 'luxon'
import type { InvitationStatus } from '#models/team_vocabulary'

/** Stored invitation states; `expired` is derived (pending past expiry). */
export type StoredInvitationStatus = Exclude<InvitationStatus, 'expired'>

export default class TeamInvitation extends TeamInvitationSchema {
  static selfAssignPrimaryKey = true

  @column({ isPrimary: true })
  declare id: string

  @column({ serializeAs: null })
  declare tokenHash: string

  /** The status as the contract reports it, judged on the app clock. */
  statusAt(now: DateTime = DateTime.now()): InvitationStatus {
    if (this.status === 'pending' && this.expiresAt.toMillis() <= now.toMillis()) return 'expired'
    return this.status as StoredInvitationStatus
  }

  /** Pending and not yet expired: the only state in which the proof can be accepted. */
  isLive(now: DateTime = DateTime.now()) {
    return this.statusAt(now) === 'pending'
  }
}
