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
| --smoke (CI): 3 logins, 1 image, 2 uploaders of a tiny WebP instead of the costliest.
|
| Prints one JSON object: login p50/p95 (ms) quiet and loaded, their ratio, and the
| uploads answered by status while the logins ran.
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
const APP_KEY = process.env.APP_KEY ?? 'bench-app-key-0123456789abcdef0123456789'
process.env.APP_KEY = APP_KEY

execFileSync(process.execPath, ['ace.js', 'migration:run', '--force'], {
  cwd: 'build',
  env: { ...process.env, NODE_ENV: 'production' },
  stdio: 'inherit',
})
const { shutdown } = await bootApp()
const { appHeaders, createMerchantWithUser, createPortalClient, signedInMember } =
  await import('#tests/helpers/portal')
const { costliestWebp, tinyWebp } = await import('#tests/helpers/images')

const portalClient = await createPortalClient()
const merchantB = await createMerchantWithUser({ role: 'developer' })
const merchantA = await signedInMember('administrator')
const logo = SMOKE ? await tinyWebp() : await costliestWebp()

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

try {
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

  console.log(
    JSON.stringify(
      {
        uploaders: UPLOADERS,
        logo_bytes: logo.length,
        login_ms: { quiet, loaded },
        ratio_p50: +(loaded.p50 / quiet.p50).toFixed(2),
        ratio_p95: +(loaded.p95 / quiet.p95).toFixed(2),
        uploads_answered_during_loaded_logins: answered,
        load_average: loadavg().map((value) => +value.toFixed(1)),
      },
      null,
      2
    )
  )
  expectFigures('logo_lane', {
    'quiet login p50': quiet.p50,
    'loaded login p50': loaded.p50,
    'images processed': processedImagesOf(answered),
  })
} finally {
  uploading = false
  stop()
  await shutdown()
}
