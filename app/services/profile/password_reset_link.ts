/*
| The password reset link (portal-api.md › POST /auth/reset-password/reset-link;
| Authentication rules 5, 9). Using it, and changing a password: passwords.ts.
|
| - A reset proof is 32 random bytes (64 hex), stored only as SHA-256, valid 60
|   minutes, single use. A new mail never replaces a link already mailed: anyone may
|   ask for a mail to the owner's address, so a replacing mail would let them kill
|   the owner's link. Several proofs of one account coexist until used or expired;
|   the first one used (or a password change) revokes the others.
| - Per account, at most one reset mail per RESET_LINK_COOLDOWN_MINUTES and at most
|   RESET_LINK_MAILS_PER_HOUR in any hour: a request inside either bound sends
|   nothing, so nobody can flood a mailbox. Every proof is written with the record
|   of its mail and both last 60 minutes, so an account has at most
|   RESET_LINK_MAILS_PER_HOUR live proofs (3 by default, 60 at most).
| - A mail that fails to send takes its record and its proof back: it does not hold
|   the owner back for the cooldown with no working link.
| - The reset-link answer must not reveal whether the account exists nor whether a
|   mail went out: the lookup, the cooldown, the proof and the mail all happen after
|   the response (a write and its commit for some requests only would otherwise
|   show in the response time). Only a database round trip that every request makes
|   alike comes before it, so an unreachable database answers 503 as on every other
|   route that needs it, whatever the limit store, instead of a 200 with nothing sent.
| - That work waits its turn in a lane of its own (resetWorkLane), fair between client
|   addresses and bounded: beyond it the request is shed with 503 and Retry-After
|   before any of it is done, whatever address it names.
*/
import { DateTime } from 'luxon'
import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { normalizeIdentity } from '#support/identity'
import { ROLES } from '#models/user'
import { newProof, sha256Hex } from '#support/one_time_proof'
import { afterThisTurn, deliver, inBackground } from '#services/mailer'
import PasswordResetMail from '#mails/password_reset_mail'
import settings from '#config/settings'
import ApiError from '#exceptions/api_error'
import { WorkLane } from '#platform/work_lane'
import { LaneFullError } from '#platform/lane_refusal'

export const RESET_TOKEN_MINUTES = 60

/**
 * The window of RESET_LINK_MAILS_PER_HOUR: a mail counts against the cap this long.
 * A proof lives no longer (RESET_TOKEN_MINUTES), so an account's live proofs are
 * never more than the cap.
 */
const MAIL_COUNTS_MINUTES = 60

/** Minutes after a reset mail during which the account gets no other (default 5). */
function resetLinkCooldownMinutes() {
  return settings.resetLinkCooldownMinutes()
}

/** Reset mails an account gets at most in any hour (default 3). */
function resetLinkMailsPerHour() {
  return settings.resetLinkMailsPerHour()
}

/** The mailed link: reset_url with `token` and `email` appended as query values. */
export function resetLinkFor(resetUrl: string, token: string, email: string) {
  return `${resetUrl}?${new URLSearchParams({ token, email }).toString()}`
}

/**
 * The lane of the work after reset-link answers: four at a time (each holds a database
 * connection for its short transaction, so at most four of the pool's ten, then the
 * relay for up to the SMTP timeouts, about 40 s when it hangs), a hundred waiting, in
 * turn between client addresses
 * (one address is held to the public limit anyway). Unbounded, a flood from many
 * addresses queued transactions for the database's pool, beside every request, and
 * mails for a relay that could not take them.
 */
let resetWork: WorkLane | undefined
export function resetWorkLane() {
  // A task takes milliseconds when the relay answers: the estimate starts there.
  resetWork ??= new WorkLane({
    name: 'reset_link',
    concurrency: 4,
    maxQueued: 100,
    maxPerKey: 100,
    secondsPerWork: 0.05,
    // A link asked for a minute ago is not mailed any more: its requester may ask again.
    maxWaitMs: 60_000,
  })
  return resetWork
}

/**
 * POST /auth/reset-password/reset-link after validation: everything else runs
 * after the response path, so the answer is the same, in content and in time,
 * whether or not the account exists and whether or not a mail goes out. Rejects,
 * as any database access does, when the database cannot be reached, and with 503
 * SERVICE_UNAVAILABLE and Retry-After when the lane of that work is full.
 */
export async function requestPasswordResetInBackground(
  input: { email: string; resetUrl: string },
  client: { ip: string | null }
) {
  // The same statement for every request, known account or not: it shows nothing
  // of the account, only whether the work after the answer can be done at all.
  await db.rawQuery('SELECT 1')
  const lane = resetWorkLane()
  const key = client.ip ?? 'unknown'
  try {
    lane.refuseWhenFull(key)
  } catch (error) {
    if (!(error instanceof LaneFullError)) throw error
    throw ApiError.shed(
      'Too many password reset requests are waiting. Try again later.',
      error.retryAfterSeconds
    )
  }
  // Admitted in the same turn as the check above; the work itself starts after the
  // response path.
  const work = lane.run(key, () => afterThisTurn().then(() => requestPasswordReset(input)))
  // Past its wait, the work is dropped as load shed: counted by the lane, not an error.
  inBackground(
    'password reset request',
    work.catch((error) => {
      if (!(error instanceof LaneFullError)) throw error
    })
  )
}

/**
 * Records a reset proof for the Portal account of `email` and mails the link, if
 * there is an eligible account and its cooldown and hourly cap allow a mail.
 */
export async function requestPasswordReset(input: { email: string; resetUrl: string }) {
  const email = normalizeIdentity(input.email)
  const proof = newProof()
  const now = DateTime.now()
  const mailing = await db.transaction(async (trx) => {
    // The account's row lock serializes concurrent requests for it: the second one
    // reads the mails sent only once the first has committed its own, so two racing
    // requests cannot both mail.
    const account = await trx
      .from('users')
      .join('merchants', 'merchants.id', 'users.merchant_id')
      .where('users.email', email)
      .whereIn('users.role', [ROLES.administrator, ROLES.developer])
      .where('users.is_active', true)
      .where('merchants.is_active', true)
      .select('users.id', 'users.email')
      .forUpdate('users')
      .first()
    if (!account) return null
    if (!(await mayMailResetLink(trx, account.id, now))) return null

    const [record] = await trx
      .table('password_reset_mailings')
      .insert({
        user_id: account.id,
        sent_at: now.toJSDate(),
        expires_at: now.plus({ minutes: MAIL_COUNTS_MINUTES }).toJSDate(),
      })
      .returning('id')
    // Beside the account's other proofs: the links already mailed keep working.
    const [stored] = await trx
      .table('password_reset_tokens')
      .insert({
        user_id: account.id,
        token_hash: sha256Hex(proof),
        expires_at: now.plus({ minutes: RESET_TOKEN_MINUTES }).toJSDate(),
        created_at: now.toJSDate(),
      })
      .returning('id')
    return { recipient: account.email as string, recordId: record.id, proofId: stored.id }
  })
  if (!mailing) return
  const sent = await deliver(
    new PasswordResetMail(
      mailing.recipient,
      resetLinkFor(input.resetUrl, proof, mailing.recipient),
      RESET_TOKEN_MINUTES
    )
  )
  if (!sent) await withdrawUnsentMail(mailing)
}

/**
 * A reset mail that failed to send is taken back: its proof reached nobody, and
 * its record no longer counts toward the cooldown and the hourly cap, so the
 * owner's next request mails a link at once.
 */
async function withdrawUnsentMail(mailing: { recordId: number; proofId: number }) {
  await db.transaction(async (trx) => {
    await trx.from('password_reset_mailings').where('id', mailing.recordId).delete()
    await trx.from('password_reset_tokens').where('id', mailing.proofId).delete()
  })
}

/**
 * Whether the account may get a reset mail at `now`: none within the cooldown, and
 * fewer than the hourly cap within the last hour. Read under the account's row lock.
 */
async function mayMailResetLink(trx: TransactionClientContract, userId: number, now: DateTime) {
  const recent = await trx
    .from('password_reset_mailings')
    .where('user_id', userId)
    .where('expires_at', '>', now.toJSDate())
    .select(
      trx.raw('count(*)::int as mails'),
      trx.raw('bool_or(sent_at > ?) as cooling_down', [
        now.minus({ minutes: resetLinkCooldownMinutes() }).toJSDate(),
      ])
    )
    .first()
  return !recent.cooling_down && recent.mails < resetLinkMailsPerHour()
}
