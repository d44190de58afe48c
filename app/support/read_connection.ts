/*
| The connection for read-heavy routes (collections list, detail and history reads,
| metrics and chart aggregates): the replica of DATABASE_READ_URL when configured,
| else the primary. Never use it for authentication, for writes, or for a read that
| must see a write of the same request (those stay on `db`).
*/
import db from '@adonisjs/lucid/services/db'
import settings from '#config/settings'

export function readConnection() {
  return settings.hasReadReplica() ? db.connection('read') : db.connection()
}
