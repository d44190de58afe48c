/*
| Notifications of changed rows, for an in-process cache of rows that rarely change (the
| Portal application's, app/auth/portal_clients.ts). One connection of its own, outside
| the pool, LISTENs on a channel that a trigger of the table notifies with the row's key
| (database/migrations/1130_notify_portal_client_changes.ts).
|
| A cache may trust a row only while the connection listens and no change has been heard
| since it started reading the row (`generation`). When the connection is lost (an
| outage, a restart of PostgreSQL), `onChange(null)` forgets every row, and rows are read
| from the database again until it listens again: a change is never missed, at worst it
| is read once more. The connection starts on first use, never keeps the process alive,
| and is retried at most every RETRY_MS.
*/
import { Socket } from 'node:net'
import pg from 'pg'

const RETRY_MS = 5_000

export class ChangeListener {
  /** Bumped by every change heard and by every start or loss of listening. */
  generation = 0
  #client: pg.Client | null = null
  #connecting: Promise<void> | null = null
  #retryAt = 0
  #closed = false
  #waiters: (() => void)[] = []

  /**
   * `channel` is an identifier written in the code (never input); `onChange` gets the
   * changed row's key, or null when every row must be forgotten.
   */
  constructor(
    readonly channel: string,
    readonly connectionString: () => string | undefined,
    readonly onChange: (key: string | null) => void
  ) {}

  /** Whether the connection listens now; when it does not, it starts connecting. */
  listening(): boolean {
    if (this.#client) return true
    if (!this.#closed && !this.#connecting && Date.now() >= this.#retryAt) {
      this.#connecting = this.#connect().finally(() => (this.#connecting = null))
    }
    return false
  }

  /** Connects now, if not yet, and says whether it listens. */
  async listen(): Promise<boolean> {
    this.#retryAt = 0
    this.listening()
    await this.#connecting
    return this.#client !== null
  }

  /** Resolves at the next change heard or the next loss (tests wait for one). */
  nextChange(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve))
  }

  async close(): Promise<void> {
    this.#closed = true
    await this.#connecting
    const client = this.#client
    if (client) this.#forget(client)
  }

  async #connect() {
    const client = new pg.Client({ connectionString: this.connectionString() })
    client.on('error', () => this.#forget(client))
    client.on('end', () => this.#forget(client))
    client.on('notification', (message) => {
      if (message.channel === this.channel) this.#changed(message.payload ?? null)
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${this.channel}`)
    } catch {
      this.#retryAt = Date.now() + RETRY_MS
      client.end().catch(() => {})
      return
    }
    if (this.#closed) {
      await client.end().catch(() => {})
      return
    }
    // Idle, it must not hold the process open (commands, tests); close() ends it.
    const stream: unknown = Reflect.get(Reflect.get(client, 'connection') ?? {}, 'stream')
    if (stream instanceof Socket) stream.unref()
    this.#client = client
    // Whatever was read before listening is not trusted.
    this.#changed(null)
  }

  #forget(client: pg.Client) {
    if (this.#client !== client) return
    this.#client = null
    this.#retryAt = Date.now() + RETRY_MS
    this.#changed(null)
    client.end().catch(() => {})
  }

  #changed(key: string | null) {
    this.generation++
    this.onChange(key)
    const waiters = this.#waiters
    this.#waiters = []
    for (const resolve of waiters) resolve()
  }
}
