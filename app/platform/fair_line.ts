/*
| The waiting line in front of a fixed number of places, fair between keys: the line of
| the password hashing threads (hash_queue.ts) and of the image lane (work_lane.ts).
|
| A freed place goes to the key whose last task started least recently, a key with no
| task started first; ties (keys never started) go in arrival order, and within a key
| its tasks go in arrival order. So keys are served in turn, and a task of another key
| waits for the running tasks and at most one task of each key waiting ahead of it: never
| for a key's second task, even one queued before it. A key's last start is kept only
| while it has tasks running or waiting (its user calls forget when its last one ends),
| so the line never holds more keys than there are tasks.
*/
interface Entry<Item> {
  item: Item
  arrival: number
}

interface KeyLine<Item> {
  waiting: Entry<Item>[]
  /** When the key's latest task started (a count of starts); 0 when none is remembered. */
  lastStarted: number
}

export class FairLine<Item> {
  /** Keys with tasks waiting or a start remembered. */
  readonly #keys = new Map<string, KeyLine<Item>>()
  #length = 0
  #arrivals = 0
  #starts = 0

  /** Tasks waiting, in all. */
  get length() {
    return this.#length
  }

  /** Tasks of `key` waiting. */
  waitingOf(key: string) {
    return this.#keys.get(key)?.waiting.length ?? 0
  }

  /** Puts a task of `key` at the end of its key's line. */
  add(key: string, item: Item) {
    this.#lineOf(key).waiting.push({ item, arrival: ++this.#arrivals })
    this.#length++
  }

  /** Takes a waiting task out (its deadline passed, its caller left); false when it is not waiting. */
  remove(key: string, item: Item) {
    const line = this.#keys.get(key)
    const index = line?.waiting.findIndex((entry) => entry.item === item) ?? -1
    if (!line || index === -1) return false
    line.waiting.splice(index, 1)
    this.#length--
    if (line.waiting.length === 0 && line.lastStarted === 0) this.#keys.delete(key)
    return true
  }

  /** Records that a task of `key` started now without waiting. */
  started(key: string) {
    this.#lineOf(key).lastStarted = ++this.#starts
  }

  /**
   * Forgets `key`'s last start when none of its tasks runs or waits any more (call it
   * when the key's last running task ends, and after remove), so the line holds only
   * keys with tasks in the lane. A key with tasks waiting keeps its turn.
   */
  forget(key: string) {
    if (this.waitingOf(key) === 0) this.#keys.delete(key)
  }

  /**
   * Takes the next task to start, of the first key in turn that `eligible` accepts (a
   * key at its share of the places keeps its turn), and records its start; undefined
   * when none can start.
   */
  takeNext(eligible: (key: string) => boolean = () => true): Item | undefined {
    let chosen: [string, KeyLine<Item>] | undefined
    for (const entry of this.#keys) {
      if (entry[1].waiting.length === 0 || !eligible(entry[0])) continue
      if (!chosen || comesBefore(entry[1], chosen[1])) chosen = entry
    }
    if (!chosen) return undefined
    const [key, line] = chosen
    const next = line.waiting.shift()!
    this.#length--
    this.started(key)
    return next.item
  }

  /**
   * How many waiting tasks start before a new task of `key`, places aside: with n of its
   * own waiting, it starts in the key's turn n (from 0), after n + 1 tasks of each key
   * whose turn comes before its key's and n of each key after.
   */
  startBefore(key: string) {
    const own = this.waitingOf(key)
    const ofKey: KeyLine<unknown> = this.#keys.get(key) ?? {
      waiting: [{ item: undefined, arrival: this.#arrivals + 1 }],
      lastStarted: 0,
    }
    let before = own
    for (const [other, line] of this.#keys) {
      if (other === key || line.waiting.length === 0) continue
      before += Math.min(line.waiting.length, comesBefore(line, ofKey) ? own + 1 : own)
    }
    return before
  }

  #lineOf(key: string) {
    let line = this.#keys.get(key)
    if (!line) {
      line = { waiting: [], lastStarted: 0 }
      this.#keys.set(key, line)
    }
    return line
  }
}

/** Whether key line `a` has its turn before `b`: started less recently, or its first task arrived earlier. */
function comesBefore(a: KeyLine<unknown>, b: KeyLine<unknown>) {
  if (a.lastStarted !== b.lastStarted) return a.lastStarted < b.lastStarted
  return (a.waiting[0]?.arrival ?? Infinity) < (b.waiting[0]?.arrival ?? Infinity)
}
