/*
| A bench stopped with SIGTERM or SIGINT (an operator's Ctrl-C, a CI timeout) leaves
| through process.exit, so that the 'exit' handlers of its modules stop the servers and
| processes it started. Without a handler Node dies at once, and they keep running.
| Imported for its effect by every module that starts a process.
*/
const SIGNAL_NUMBERS = { SIGINT: 2, SIGTERM: 15 } as const

for (const [signal, number] of Object.entries(SIGNAL_NUMBERS)) {
  if (process.listenerCount(signal) === 0) process.once(signal, () => process.exit(128 + number))
}
