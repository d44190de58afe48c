import { PasswordResetTokenSchema } from '#database/schema'

/** A live password reset proof (hash only); one per user. */
export default class PasswordResetToken extends PasswordResetTokenSchema {}
