import { AuditLogSchema } from '#database/schema'

export default class AuditLog extends AuditLogSchema {}
