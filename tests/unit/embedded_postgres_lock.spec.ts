/*
| The embedded cluster's pid file is cleared only when its postmaster is gone
| (decisions.md §3, embedded PostgreSQL): a live one, still starting or recovering, keeps
| its lock, so a second process never starts a second postmaster on the same data.
*/
import { test } from '@japa/runner'
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { postmasterAlive } from '#start/embedded_postgres'

async function dataDirectory() {
  return mkdtemp(join(tmpdir(), 'mp-embedded-lock-'))
}

/** A pid no process has: a child that has already exited. */
async function exitedPid() {
  const child = spawn(process.execPath, ['-e', ''])
  await new Promise((resolve) => child.once('exit', resolve))
  return child.pid!
}

test.group('Embedded PostgreSQL › the pid file of a stopped cluster', () => {
  test('no pid file: nothing holds the cluster', async ({ assert }) => {
    const dir = await dataDirectory()
    assert.isFalse(await postmasterAlive(dir))
    await rm(dir, { recursive: true })
  })

  test('a pid file left by a postmaster that exited is stale', async ({ assert }) => {
    const dir = await dataDirectory()
    await writeFile(join(dir, 'postmaster.pid'), `${await exitedPid()}\n${dir}\n`)
    assert.isFalse(await postmasterAlive(dir))
    await rm(dir, { recursive: true })
  })

  test('a pid reused by a process that does not name the data directory is stale', async ({
    assert,
  }) => {
    const dir = await dataDirectory()
    await writeFile(join(dir, 'postmaster.pid'), `${process.pid}\n${dir}\n`)
    assert.isFalse(await postmasterAlive(dir))
    await rm(dir, { recursive: true })
  })

  test('a garbled pid file is stale', async ({ assert }) => {
    const dir = await dataDirectory()
    await writeFile(join(dir, 'postmaster.pid'), 'not a pid\n')
    assert.isFalse(await postmasterAlive(dir))
    await rm(dir, { recursive: true })
  })

  test('a running process started on the data directory holds it', async ({ assert }) => {
    const dir = await dataDirectory()
    // Stands in for `postgres -D <dir>`: alive, with the directory on its command line.
    const holder = spawn(process.execPath, [
      '-e',
      'console.log("up"); setInterval(() => {}, 1000)',
      '--',
      '-D',
      dir,
    ])
    try {
      // Until it has printed, the child may still carry this process's command line.
      await new Promise((resolve) => holder.stdout.once('data', resolve))
      await writeFile(join(dir, 'postmaster.pid'), `${holder.pid}\n${dir}\n`)
      assert.isTrue(await postmasterAlive(dir))
    } finally {
      holder.kill('SIGKILL')
      await rm(dir, { recursive: true })
    }
  })
})
