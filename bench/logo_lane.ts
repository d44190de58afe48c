/*
| Benchmark (on demand, never in CI): do logo uploads starve logins?
| (issue 21 › Heavy work in bounded lanes; figures in bench/README.md)
|
| On the production build, merchant B's user logs in one login at a time (scrypt,
| N=16384), first on a quiet server, then while UPLOADERS clients of merchant A keep
| posting a 4096 x 4096 WebP that costs a decoding and two encodings
| (tests/helpers/images.ts › costliestWebp). An uploader sends its next upload as soon
| as the previous one is answered; after a 503 it waits the Retry-After (at most 5 s).
| The loaded logins go on until there were LOGINS of them and IMAGES uploads were
| processed (answered 200 or 422) meanwhile, so they span image work.
|
|   npm run build
|   DATABASE_URL=postgres://.../mp_bench node --import=@poppinss/ts-exec bench/logo_lane.ts \
|     [--logins=30] [--images=4] [--uploaders=20] [--port=3496] [--smoke]
|
| Tall PNGs (issue 38 › goal 1), after the logins: in each of --tall-rounds (3) rounds,
| merchant B's administrator uploads a 64 x 64 PNG alone (quiet), then merchant A's
| administrator sends two images at once (--a-image: `tall`, the 1 x 16,777,216 grey
| PNG of 65 KB, or `costliest`, the WebP above) and B uploads its 64 x 64 PNG 200 ms
| later; the next round starts once every answer is in (each bounded at 180 s).
| Goals: B's upload answers 200 within 15 s; every upload is answered within 60 s
| with 200, 422, or 503 with Retry-After. --phases=logins,tall (both) runs one or both.
|
| --smoke (CI): 3 logins, 1 image, 2 uploaders of a tiny WebP instead of the costliest,
| one round of tall PNGs.
|
| Prints one JSON object: login p50/p95 (ms) quiet and loaded, their ratio, the
| uploads answered by status while the logins ran, and each tall-PNG round.
*/
import { execFileSync } from 'node:child_process'
import { loadavg } from 'node:os'
import { setTimeout as delay } from 'node:timers/promises'
import { bootApp } from './boot_app.js'
import { startProductionServer } from './production_server.js'
import { expectFigures, sized, SMOKE } from './smoke.js'

function flag(name: string, fallback: string) {
  const prefix = `--${name}=`
  return (
    process.argv.find((argument) => argument.startsWith(prefix))?.slice(prefix.length) ?? fallback
  )
}

const LOGINS = Number(flag('logins', sized('30', '3')))
const IMAGES = Number(flag('images', sized('4', '1')))
const UPLOADERS = Number(flag('uploaders', sized('20', '2')))
const PORT = Number(flag('port', '3496'))
const PHASES = flag('phases', 'logins,tall').split(',')
const TALL_ROUNDS = Number(flag('tall-rounds', sized('3', '1')))
const A_IMAGE = flag('a-image', 'tall')
if (A_IMAGE !== 'tall' && A_IMAGE !== 'costliest') throw new Error('--a-image is tall or costliest')
const UPLOAD_BOUND_MS = 180_000
const APP_KEY = process.env.APP_KEY ?? 'bench-app-key-0123456789abcdef0123456789'
process.env.APP_KEY = APP_KEY

execFileSync(process.execPath, ['ace.js', 'migration:run', '--force'], {
  cwd: 'build',
  env: { ...process.env, NODE_ENV: 'production' },
  stdio: 'inherit',
})
const { shutdown } = await bootApp()
const { appHeaders, createMerchantWithUser, createPortalClient, issuePat, signedInMember } =
  await import('#tests/helpers/portal')
const { costliestWebp, handMadeGreyPng, tinyWebp } = await import('#tests/helpers/images')

const portalClient = await createPortalClient()
const merchantB = await createMerchantWithUser({ role: 'developer' })
const merchantA = await signedInMember('administrator')
const logo = SMOKE ? await tinyWebp() : await costliestWebp()
const bAdministrator = PHASES.includes('tall')
  ? await createMerchantWithUser({ role: 'administrator', merchant: merchantB.merchant })
  : null
const bBearer = bAdministrator
  ? `Bearer ${await issuePat(bAdministrator.user, portalClient, { minutes: 240 })}`
  : ''
const smallPng = handMadeGreyPng(64, 64)
const aImage =
  A_IMAGE === 'tall'
    ? { bytes: handMadeGreyPng(1, 16_777_216), type: 'image/png' }
    : { bytes: await costliestWebp(), type: 'image/webp' }

const { base, stop } = await startProductionServer({ port: PORT, appKey: APP_KEY })

async function login() {
  const started = process.hrtime.bigint()
  const response = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { ...appHeaders(portalClient), 'content-type': 'application/json' },
    body: JSON.stringify({ username: merchantB.user.username, password: merchantB.password }),
  })
  await response.text()
  if (response.status !== 200) throw new Error(`login answered ${response.status}`)
  return Number(process.hrtime.bigint() - started) / 1e6
}

async function logins(count: number, untilImages = 0) {
  const times: number[] = []
  while (times.length < count || processedImages() < untilImages) times.push(await login())
  times.sort((a, b) => a - b)
  const at = (q: number) =>
    +times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1)
  return { count: times.length, p50: at(0.5), p95: at(0.95) }
}

let uploading = false
const uploads: Record<string, number> = {}
const processedImagesOf = (answers: Record<string, number>) =>
  (answers[200] ?? 0) + (answers[422] ?? 0)
const processedImages = () => processedImagesOf(uploads)

async function uploader() {
  while (uploading) {
    const form = new FormData()
    form.append('file', new Blob([logo], { type: 'image/webp' }), 'logo.webp')
    const response = await fetch(`${base}/api/v1/portal/merchant/logo`, {
      method: 'POST',
      headers: { authorization: merchantA.bearer },
      body: form,
    })
    await response.text()
    // Counted only while the loaded logins run (see below).
    if (uploading) uploads[response.status] = (uploads[response.status] ?? 0) + 1
    if (response.status === 503) {
      await delay(Math.min(5, Number(response.headers.get('retry-after') ?? 1)) * 1000)
    }
  }
}

interface Upload {
  ms: number
  status: number
  retry_after: string | null
}

/** One logo upload, answered or not within UPLOAD_BOUND_MS (status 0 then). */
async function upload(bearer: string, bytes: Buffer, type: string): Promise<Upload> {
  const form = new FormData()
  form.append('file', new Blob([bytes], { type }), 'logo')
  const started = performance.now()
  try {
    const response = await fetch(`${base}/api/v1/portal/merchant/logo`, {
      method: 'POST',
      headers: { authorization: bearer },
      body: form,
      signal: AbortSignal.timeout(UPLOAD_BOUND_MS),
    })
    await response.arrayBuffer()
    const ms = +(performance.now() - started).toFixed(1)
    return { ms, status: response.status, retry_after: response.headers.get('retry-after') }
  } catch {
    return { ms: +(performance.now() - started).toFixed(1), status: 0, retry_after: null }
  }
}

/** Answered within 60 s with 200, 422, or 503 with Retry-After (issue 38 › goal 1). */
const withinGoal = (answer: Upload) =>
  answer.ms <= 60_000 &&
  (answer.status === 200 ||
    answer.status === 422 ||
    (answer.status === 503 && answer.retry_after !== null))

/** The tall-PNG rounds: B's 64 x 64 upload alone, then while A sends two images at once. */
async function tallRounds() {
  const rounds = []
  for (let round = 0; round < TALL_ROUNDS; round++) {
    const quiet = await upload(bBearer, smallPng, 'image/png')
    const aUploads = [0, 1].map(() => upload(merchantA.bearer, aImage.bytes, aImage.type))
    await delay(200)
    const loaded = await upload(bBearer, smallPng, 'image/png')
    rounds.push({ b_quiet: quiet, b_while_a_uploads: loaded, a: await Promise.all(aUploads) })
  }
  return {
    a_image: A_IMAGE,
    a_image_bytes: aImage.bytes.length,
    rounds,
    goals: {
      b_upload_200_within_15s: rounds.every(
        (round) => round.b_while_a_uploads.status === 200 && round.b_while_a_uploads.ms <= 15_000
      ),
      every_upload_answered_within_60s_200_422_or_503_with_retry_after: rounds.every((round) =>
        [round.b_quiet, round.b_while_a_uploads, ...round.a].every(withinGoal)
      ),
    },
  }
}

/** Login p50/p95 quiet, then while A's uploaders keep the lane busy. */
async function loginPhases() {
  await logins(sized(5, 1))
  const quiet = await logins(LOGINS)

  uploading = true
  const uploaders = Array.from({ length: UPLOADERS }, () => uploader())
  // Every uploader's first image is received and being decoded (or queued) by now.
  await delay(sized(3000, 500))
  for (const status of Object.keys(uploads)) delete uploads[status]
  const loaded = await logins(LOGINS, IMAGES)
  uploading = false
  const answered = { ...uploads }
  await Promise.all(uploaders)
  return {
    report: {
      uploaders: UPLOADERS,
      logo_bytes: logo.length,
      login_ms: { quiet, loaded },
      ratio_p50: +(loaded.p50 / quiet.p50).toFixed(2),
      ratio_p95: +(loaded.p95 / quiet.p95).toFixed(2),
      uploads_answered_during_loaded_logins: answered,
    },
    figures: {
      'quiet login p50': quiet.p50,
      'loaded login p50': loaded.p50,
      'images processed': processedImagesOf(answered),
    },
  }
}

try {
  const loginsRun = PHASES.includes('logins') ? await loginPhases() : null
  const tall = PHASES.includes('tall') ? await tallRounds() : null
  console.log(
    JSON.stringify(
      {
        ...loginsRun?.report,
        tall_pngs: tall,
        load_average: loadavg().map((value) => +value.toFixed(1)),
      },
      null,
      2
    )
  )
  expectFigures('logo_lane', { ...loginsRun?.figures, ...tallFigures(tall) })
} finally {
  uploading = false
  stop()
  await shutdown()
}

/** The smoke check's figures of the tall-PNG rounds (none when they did not run). */
function tallFigures(tall: Awaited<ReturnType<typeof tallRounds>> | null) {
  if (!tall) return {}
  return {
    'B upload ms while A uploads': Math.max(
      ...tall.rounds.map((round) => round.b_while_a_uploads.ms)
    ),
    'A uploads answered': tall.rounds
      .flatMap((round) => round.a)
      .filter((answer) => answer.status > 0).length,
  }
}
