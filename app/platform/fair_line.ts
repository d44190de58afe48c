/*
| The waiting line of a work lane (work_lane.ts): which waiting task a freed place goes
| to. The task whose key had a task started least recently (a key with none in the lane
| first), ties in arrival order: so one key's second task, queued first, does not hold
| another key's task behind both. Start order is kept only for keys with tasks in the
| lane (the lane forgets a key when its last task ends), so it never grows.
*/
interface Waiting {
  key: string
  start: () => void
}

export class FairLine {
  readonly #waiting: Waiting[] = []
  readonly #lastStarted = new Map<string, number>()
  #starts = 0

  get length() {
    return this.#waiting.length
  }

  /** Resolves when a place is handed over to this task (startNext). */
  wait(key: string) {
    return new Promise<void>((start) => this.#waiting.push({ key, start }))
  }

  /** Records that a task of `key` started now. */
  started(key: string) {
    this.#lastStarted.set(key, ++this.#starts)
  }

  /** Forgets `key`: it has no task in the lane any more. */
  forget(key: string) {
    this.#lastStarted.delete(key)
  }

  /** Starts the waiting task whose key was served least recently; false when none waits. */
  startNext() {
    const servedAt = (waiting: Waiting) => this.#lastStarted.get(waiting.key) ?? 0
    let chosen = -1
    for (let index = 0; index < this.#waiting.length; index++) {
      if (chosen === -1 || servedAt(this.#waiting[index]) < servedAt(this.#waiting[chosen])) {
        chosen = index
      }
    }
    if (chosen === -1) return false
    const [next] = this.#waiting.splice(chosen, 1)
    this.started(next.key)
    next.start()
    return true
  }
}
