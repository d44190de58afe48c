/*
| The private folders uploads are received into (single_file_upload.ts): one per
| request, removed when the request ends. A server killed mid-request (kill -9, out of
| memory, a lost host) cannot remove its own, so a server sweeps at boot those that
| servers now gone left behind. A folder's name says it is this service's and which
| process made it: `merchant-portal-upload-<pid>-<random>` in the system's temporary
| folder. Only folders of that shape whose process no longer runs are removed: other
| servers on the host (several instances, tests) keep theirs, and anything else in
| the folder is never touched.
*/
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const PREFIX = 'merchant-portal-upload-'
const LEFTOVER = new RegExp(`^${PREFIX}([0-9]+)-`)

/** A new private folder (mode 0700) for one upload of this process. */
export function newUploadFolder(): Promise<string> {
  return mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`))
}

/** Whether a process `pid` runs (one of another user counts as running). */
function isRunning(pid: number) {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Removes the upload folders of processes that no longer run; returns how many. */
export async function sweepLeftoverUploadFolders(): Promise<number> {
  let names: string[]
  try {
    names = await readdir(tmpdir())
  } catch {
    return 0 // nothing readable, nothing to sweep
  }
  let removed = 0
  for (const name of names) {
    const pid = Number(LEFTOVER.exec(name)?.[1])
    if (!pid || isRunning(pid)) continue
    // force: a folder another server's sweep removes at the same time is not an error.
    await rm(join(tmpdir(), name), { recursive: true, force: true }).then(
      () => removed++,
      () => {}
    )
  }
  return removed
}
