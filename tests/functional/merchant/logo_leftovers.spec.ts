/*
| issue 38 › 2: nothing of an upload outlives the server that received it.
| - Upload folders are named for this service and the process that made them
|   (app/http/upload_folders.ts); a server sweeps at boot the folders of processes
|   that no longer run, and leaves every other folder alone.
| - The encoder child ends when its server is killed with -9, with an image in hand.
| Real production servers in child processes (tests/helpers/server_process.ts).
*/
import { test } from '@japa/runner'
import { spawn } from 'node:child_process'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { existsSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ApiResponse } from '@japa/api-client'
import { resetState } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { clearLogoStorage, LOGO, uploadLogo } from '#tests/helpers/merchant'
import {
  eventually,
  exitOf,
  REQUEST_MS,
  startProductionServer,
  type ServerProcess,
} from '#tests/helpers/server_process'
import { tinyPng } from '#tests/helpers/images'
import { encoderPids, holdTheLane, isRunning, laneGauges } from '#tests/helpers/logo_lane'
import { logoImageLane } from '#services/merchants/logo_image'

/** The pid of a process that has ended. */
async function endedPid() {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await exitOf(child)
  return child.pid!
}

/** A folder in the temporary folder holding a `file`, as an upload leaves it. */
async function leftover(name: string) {
  const path = join(tmpdir(), name)
  await mkdir(path, { recursive: true })
  await writeFile(join(path, 'file'), 'image bytes')
  return path
}

function upload(server: ServerProcess, bearer: string, bytes: Buffer) {
  const form = new FormData()
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'logo.png')
  return fetch(`${server.base}${LOGO()}`, {
    method: 'POST',
    headers: { Authorization: bearer, Accept: 'application/json' },
    body: form,
    signal: AbortSignal.timeout(REQUEST_MS),
  })
}

test.group('Nothing of an upload outlives its server', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => clearLogoStorage())
  group.each.setup(() => logoImageLane().images.refillBudgets())

  test("an upload is received into a folder named for the service and its server's pid", async ({
    client,
    assert,
    cleanup,
  }) => {
    const admin = await signedInMember('administrator')
    const letGo = holdTheLane()
    cleanup(letGo)
    const mine = `merchant-portal-upload-${process.pid}-`
    const ours = async () => {
      const names = await readdir(tmpdir())
      return names.filter((name) => name.startsWith(mine))
    }
    const before = await ours()

    const pending = Promise.resolve(uploadLogo(client, admin, await tinyPng()))
    await eventually(
      async () => {
        const { queued } = await laneGauges()
        return queued === 1
      },
      'the upload waits for the lane',
      { every: 5 }
    )
    const now = await ours()
    const during = now.filter((name) => !before.includes(name))
    assert.lengthOf(during, 1)
    const received = await readFile(join(tmpdir(), during[0], 'file'))
    assert.isAbove(received.length, 0)

    await letGo()
    const response: ApiResponse = await pending
    response.assertStatus(200)
    assert.isFalse(existsSync(join(tmpdir(), during[0])))
  })

  test('a server removes at boot the upload folders of servers that no longer run, and nothing else', async ({
    assert,
    cleanup,
  }) => {
    const gone = await leftover(`merchant-portal-upload-${await endedPid()}-aB3dE6`)
    // A running server's upload in progress (this process stands for it), and folders
    // that are not this service's.
    const running = await leftover(`merchant-portal-upload-${process.pid}-xY7zW1`)
    const others = [
      await leftover(`upload-${await endedPid()}`),
      await leftover('merchant-portal-upload-x'),
    ]
    cleanup(async () => {
      for (const path of [gone, running, ...others])
        await rm(path, { recursive: true, force: true })
    })

    const server = await startProductionServer()
    cleanup(() => server.kill())
    assert.isFalse(existsSync(gone))
    assert.isTrue(existsSync(join(running, 'file')))
    for (const path of others) assert.isTrue(existsSync(join(path, 'file')))
  }).timeout(300_000)

  test('the encoder child ends when its server is killed with -9, an image in hand', async ({
    assert,
    cleanup,
  }) => {
    const admin = await signedInMember('administrator')
    const server = await startProductionServer()
    cleanup(() => server.kill())
    const first = await upload(server, admin.bearer, await tinyPng())
    assert.equal(first.status, 200)
    const [encoder] = encoderPids(server.child.pid!)
    assert.isDefined(encoder)
    cleanup(() => {
      if (isRunning(encoder)) process.kill(encoder, 'SIGKILL')
    })

    // The encoder is held mid-image: stopped, with the next upload sent to it.
    process.kill(encoder, 'SIGSTOP')
    const inHand = upload(server, admin.bearer, await tinyPng()).catch(() => null)
    await eventually(
      async () => readFileSync(`/proc/${encoder}/status`, 'utf8').includes('State:\tT'),
      'the encoder is stopped'
    )
    server.kill()
    await exitOf(server.child)
    await inHand
    process.kill(encoder, 'SIGCONT')
    await eventually(async () => !isRunning(encoder), 'the encoder ends')
  }).timeout(300_000)
})
