/*
| What Linux says of each thread of a process (/proc/<pid>/task/<tid>/stat), for tests
| of CPU priorities: the nice level and the scheduling policy.
*/
import { readdir, readFile } from 'node:fs/promises'

export interface ThreadStat {
  thread: string
  /** Field 19 of stat. */
  nice: number
  /** Field 41 of stat (SCHED_IDLE is 5). */
  policy: number
}

/** Each thread of process `pid` still running when read. */
export async function threadStats(pid: number): Promise<ThreadStat[]> {
  const stats: ThreadStat[] = []
  for (const thread of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${thread}/stat`, 'utf8').catch(() => null)
    if (stat === null) continue // a thread that ended meanwhile
    // After the command name in parentheses, the fields start at the third (state).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    stats.push({ thread, nice: Number(fields[19 - 3]), policy: Number(fields[41 - 3]) })
  }
  return stats
}
