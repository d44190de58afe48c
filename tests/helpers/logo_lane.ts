/*
| The logo_image lane seen from the tests (app/services/merchants/logo_image.ts): its
| Prometheus gauges, and its places held by the test so that uploads stay queued
| until it lets them go. Never timing.
*/
import { readdirSync, readFileSync } from 'node:fs'
import { logoImageLane } from '#services/merchants/logo_image'
import { metricsText } from '#platform/metrics_server'
import { connectToServer } from '#tests/helpers/test_server'
import { route } from '#tests/helpers/routes'

/** The lane's gauges as scraped: portal_lane_tasks{lane="logo_image",state}. */
export async function laneGauges() {
  const text = await metricsText()
  const read = (state: string) => {
    const line = new RegExp(
      `^portal_lane_tasks\\{lane="logo_image",state="${state}"\\} (\\d+)$`,
      'm'
    )
    return Number(text.match(line)?.[1] ?? Number.NaN)
  }
  return { running: read('running'), queued: read('queued') }
}

let holds = 0

/** Takes every place of the lane until the returned function is called. */
export function holdTheLane() {
  const { images } = logoImageLane()
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  // Keys of their own each time: their time in the lane is charged to them.
  const holders = Array.from({ length: images.concurrency }, () =>
    images.run(`test-holder-${++holds}`, () => released)
  )
  return async () => {
    release()
    await Promise.all(holders)
  }
}

/** The pids of `parent`'s logo encoder children (app/platform/child_workers.ts); this process's by default. */
export function encoderPids(parent = process.pid): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^[0-9]+$/.test(entry))
    .filter((pid) => {
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8')
        return (
          status.match(/^PPid:\s+(\d+)$/m)?.[1] === String(parent) &&
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('logo_encoder_process')
        )
      } catch {
        return false // a process that ended meanwhile
      }
    })
    .map(Number)
}

/** Whether process `pid` still exists (a zombie not yet reaped counts as gone). */
export function isRunning(pid: number) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/**
 * Sends a logo upload of `image` (a PNG) with `authorization` over a socket of its own,
 * so that the test can close it mid-request, as a client that gives up.
 */
export async function uploadOverItsOwnSocket(authorization: string, image: Buffer) {
  const boundary = 'own-socket-boundary'
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="logo.png"\r\n` +
        'Content-Type: image/png\r\n\r\n'
    ),
    image,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  const socket = await connectToServer()
  socket.write(
    `POST ${route('merchant.logo.store')} HTTP/1.1\r\n` +
      `Host: ${process.env.HOST}:${process.env.PORT}\r\n` +
      `Authorization: ${authorization}\r\n` +
      `Content-Type: multipart/form-data; boundary=${boundary}\r\n` +
      `Content-Length: ${body.length}\r\n\r\n`
  )
  socket.write(body)
  return socket
}
