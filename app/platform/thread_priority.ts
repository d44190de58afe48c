/*
| Lowering this process's CPU priority. Linux keeps a nice level per thread and a new
| thread inherits its creator's, so the threads that exist now (V8's helpers, libuv's
| pool) are set one by one, and those started later inherit the level.
|
| A level is only ever lowered: a thread already nicer keeps its level. Run as root, a
| process may raise a level too, and an operator who started a command under `nice 19`
| meant it to stay there.
*/
import { readdirSync } from 'node:fs'
import { getPriority, setPriority } from 'node:os'

/** The ids of this process's threads (0, this thread, where /proc cannot tell). */
function threadIds(): number[] {
  try {
    return readdirSync('/proc/self/task').map(Number)
  } catch {
    // Not Linux: 0 is the whole process.
    return [0]
  }
}

/** Sets every thread of this process below `nice` (0-19) to `nice`. */
export function lowerEveryThread(nice: number) {
  for (const thread of threadIds()) {
    try {
      if (getPriority(thread) < nice) setPriority(thread, nice)
    } catch {
      // A thread that ended meanwhile, or a system without per-thread levels.
    }
  }
}
