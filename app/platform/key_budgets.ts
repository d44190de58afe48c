/*
| The time budgets of a work lane's keys (work_lane.ts): each key's tasks take at most
| `secondsPerMinute` of the lane's time a minute. A budget of that many seconds,
| refilled evenly up to it; a key in debt is refused until it is repaid.
*/

/**
 * A key's time budget: its balance at `at` (ms), in sixtieths of a millisecond, so
 * that it is exact: a task's milliseconds cost 60 each, and each millisecond of the
 * clock gives back secondsPerMinute.
 */
interface Budget {
  balance: number
  at: number
}

export class KeyBudgets {
  /** Keys whose budget is not full; a full one is dropped, so this holds recent keys only. */
  readonly #budgets = new Map<string, Budget>()

  /** Unbounded (every balance Infinity) when `secondsPerMinute` is undefined. */
  constructor(
    readonly secondsPerMinute: number | undefined,
    private readonly now: () => number
  ) {}

  /** The key's balance now, in sixtieths of a millisecond; a full one is forgotten. */
  balance(key: string) {
    const perMinute = this.secondsPerMinute
    if (perMinute === undefined) return Infinity
    const full = perMinute * 60_000
    const budget = this.#budgets.get(key)
    if (!budget) return full
    // A clock set back (NTP) refills nothing rather than deepening a debt.
    const balance = budget.balance + Math.max(0, this.now() - budget.at) * perMinute
    if (balance < full) return balance
    this.#budgets.delete(key)
    return full
  }

  /** Charges `milliseconds` of the lane's time to the key. */
  charge(key: string, milliseconds: number) {
    if (this.secondsPerMinute === undefined) return
    const balance = this.balance(key) - Math.round(milliseconds) * 60
    this.#budgets.set(key, { balance, at: this.now() })
    // Forget the keys whose budget has refilled, so the map holds recent keys only.
    if (this.#budgets.size > 64) for (const each of [...this.#budgets.keys()]) this.balance(each)
  }

  /** The seconds until a debt of `sixtieths` (a negative balance) is repaid. */
  secondsToRepay(sixtieths: number) {
    return Math.ceil(-sixtieths / (this.secondsPerMinute! * 1000))
  }

  /** Every budget full again. */
  refill() {
    this.#budgets.clear()
  }
}
