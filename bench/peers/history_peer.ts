/*
| The hand-written peer of bench/history_page.ts: `node:http` + `pg`, no framework,
| serving GET /api/v1/portal/collections/transactions/{id}/history from the same
| stored projections, with the same work per request as the service:
|
|   the PAT as one prepared statement (token ⋈ user ⋈ merchant ⋈ Portal client, as
|   app/auth/portal_access_tokens.ts resolves it), SHA-256 of the secret against the
|   stored hash, expiry; the API limit per user (the PostgreSQL limiter store's
|   upsert); then the page as bench/peers/history_route.ts builds it.
|
| Usage: DATABASE_URL=... APP_KEY=... PEER_PORT=3416 \
|          node --import=@poppinss/ts-exec bench/peers/history_peer.ts
*/
import type http from 'node:http'
import pg from 'pg'
import { historyPage } from './history_route.js'
import { authorizeRead, failure, send, servePeer } from './peer_access.js'

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))

const PORT = Number(process.env.PEER_PORT ?? 3416)

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })

const HISTORY_PATH = /^\/api\/v1\/portal\/collections\/transactions\/([1-9][0-9]{0,15})\/history$/

async function history(request: http.IncomingMessage, response: http.ServerResponse) {
  const url = new URL(request.url!, 'http://peer')
  const transactionId = HISTORY_PATH.exec(url.pathname)?.[1]
  if (!transactionId) return send(response, 404, failure('NOT_FOUND', 'Not found.'))
  const actor = await authorizeRead(pool, request, response)
  if (!actor) return
  const body = await historyPage(pool, actor, transactionId, url.searchParams)
  if (!body) return send(response, 404, failure('NOT_FOUND', 'Not found.'))
  send(response, 200, body)
}

servePeer(PORT, '/api/v1/portal/collections/', history)
