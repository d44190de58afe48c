/*
| The login of the hand-written peer (bench/peers/plain_server.ts): `POST
| /api/v1/auth/login` written the best plain way, to tell how much of a login's cost
| beside its scrypt is the work itself and how much is ours (issue 38 › goal 4). The
| same round trips as the service, each statement named and prepared:
|
|   the API-wide limit per IP; the Portal application (`X-Service-Application`,
|   HTTP Basic: its row by client id, HMAC-SHA256(APP_KEY) of the secret against the
|   stored hash in constant time); the JSON body; the login limit per application,
|   identity digest and IP; the account by username or email, normalized; ONE scrypt
|   of the stored hash's parameters on libuv's thread pool (`crypto.scrypt`, as the
|   bare loop hashes); the PAT issued by the service's own statement (the user row
|   re-read FOR SHARE, the hash still the verified one, the merchant active); the
|   same JSON body.
|
| Happy path: a refused step answers its status with the contract's error code, and
| nothing else is checked (input bounds, origins, role names beyond the two).
*/
import type http from 'node:http'
import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { failure, sameText, send } from './peer_access.js'

const API_PER_MINUTE = 60
const LOGIN_PER_MINUTE = 5
const PAT_MINUTES = Number(process.env.PAT_TTL_MINUTES ?? 60)
// The stored role values (app/models/team_vocabulary.ts).
const ROLE_NAMES = new Map([
  [1, 'administrator'],
  [10, 'developer'],
])

const CLIENT = `select id, secret_hash, is_active from portal_clients where client_id = $1`

const ACCOUNT = `select id, password, is_active, role, merchant_id, reference_id, first_name,
    last_name, email, email_verified_at, created_at
  from users where username_normalized = $1 or email = $1
  order by (username_normalized = $1) desc limit 1`

// The service's issue-on-login statement (app/auth/portal_access_tokens.ts), with only
// the merchant columns the body needs.
const ISSUE = `with u as (
    select id, password, is_active, merchant_id, role from users where id = $1 for share
  ), m as (
    select m.id, m.reference_id, m.is_active from merchants m join u on m.id = u.merchant_id
  ), issued as (
    insert into auth_access_tokens
      (tokenable_id, type, name, hash, abilities, portal_client_id,
       created_at, updated_at, last_used_at, expires_at)
    select u.id, 'portal', null, $3, $4, $5, $6, $6, null, $7
      from u join m on true
     where u.password = $2 and u.is_active and u.merchant_id = $8 and u.role = $9
       and m.is_active
    returning id
  )
  select (select id from issued) as token_id, m.reference_id as merchant_reference_id
    from u left join m on true`

const PHC = /^\$scrypt\$n=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/

/** Whether `password` has the stored scrypt hash `stored` (PHC), one scrypt. */
function passwordMatches(stored: string, password: string): Promise<boolean> {
  const [, n, r, p, salt, hash] = PHC.exec(stored) ?? []
  if (!hash) return Promise.resolve(false)
  const expected = Buffer.from(hash, 'base64')
  const cost = { N: Number(n), r: Number(r), p: Number(p), maxmem: 64 * 1024 * 1024 }
  return new Promise((resolve, reject) =>
    scrypt(password, Buffer.from(salt, 'base64'), expected.length, cost, (error, key) =>
      error ? reject(error) : resolve(timingSafeEqual(key, expected))
    )
  )
}

export interface LoginPeer {
  rows: (name: string, text: string, values: unknown[]) => Promise<any[]>
  consume: (key: string, perMinute: number) => Promise<boolean>
  appKey: string
}

export async function login(
  peer: LoginPeer,
  request: http.IncomingMessage,
  response: http.ServerResponse
) {
  const { rows, consume } = peer
  const ip = request.socket.remoteAddress ?? '-'
  const refuse = (status: number, code: string) => send(response, status, failure(code, code))
  if (!(await consume(`api:ip:${ip}`, API_PER_MINUTE))) return refuse(429, 'RATE_LIMITED')

  const basic = /^Basic ([A-Za-z0-9+/]+={0,2})$/.exec(request.headers.authorization ?? '')
  const credentials = basic ? Buffer.from(basic[1], 'base64').toString('utf8') : ''
  const colon = credentials.indexOf(':')
  if (request.headers['x-service-application'] !== 'merchant_portal' || colon <= 0) {
    return refuse(401, 'ECOSYSTEM_CLIENT_UNAUTHENTICATED')
  }
  const clientId = credentials.slice(0, colon)
  const [client] = await rows('peer:portal-client', CLIENT, [clientId])
  const presented =
    'hmac-sha256$' +
    createHmac('sha256', peer.appKey)
      .update(credentials.slice(colon + 1))
      .digest('hex')
  if (!client?.is_active || !sameText(client.secret_hash, presented)) {
    return refuse(401, 'ECOSYSTEM_CLIENT_UNAUTHENTICATED')
  }

  let raw = ''
  for await (const chunk of request) raw += chunk
  const { username, password } = JSON.parse(raw) as { username: string; password: string }
  const identity = createHash('sha256').update(username.trim().toLowerCase()).digest('base64url')
  if (!(await consume(`login:app:${clientId}:${identity}:ip:${ip}`, LOGIN_PER_MINUTE))) {
    return refuse(429, 'RATE_LIMITED')
  }

  const [user] = await rows('peer:login-account', ACCOUNT, [
    username.trim().normalize('NFC').toLowerCase(),
  ])
  if (!user || !(await passwordMatches(user.password, password))) {
    return refuse(401, 'INVALID_CREDENTIALS')
  }
  const role = ROLE_NAMES.get(user.role)
  if (!user.is_active || !role || !user.merchant_id) {
    return refuse(403, 'MERCHANT_USER_NOT_AUTHORIZED')
  }

  const secret = randomBytes(32).toString('base64url')
  const now = new Date()
  const expiresAt = new Date(now.getTime() + PAT_MINUTES * 60_000)
  const [issued] = await rows('peer:issue-on-login', ISSUE, [
    user.id,
    user.password,
    createHash('sha256').update(secret).digest('hex'),
    JSON.stringify(['merchant-portal']),
    client.id,
    now,
    expiresAt,
    user.merchant_id,
    user.role,
  ])
  if (!issued?.token_id) return refuse(403, 'MERCHANT_USER_NOT_AUTHORIZED')
  send(response, 200, {
    success: true,
    message: 'Login successful.',
    data: {
      access_token: `pat_${Buffer.from(String(issued.token_id)).toString('base64url')}.${Buffer.from(secret).toString('base64url')}`,
      token_type: 'Bearer',
      expires_at: expiresAt.toISOString(),
      user: {
        id: user.id,
        reference_id: user.reference_id,
        merchant_reference_id: issued.merchant_reference_id,
        merchant_id: user.merchant_id,
        first_name: user.first_name,
        last_name: user.last_name,
        role: user.role,
        email: user.email,
        email_verified_at: user.email_verified_at ? user.email_verified_at.toISOString() : null,
        created_at: user.created_at.toISOString(),
      },
    },
  })
}
