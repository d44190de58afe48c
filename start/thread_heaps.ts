/*
| The young generation's size that README › Deployment gives V8
| (`--min-semi-space-size=16 --max-semi-space-size=16`) is meant for the request
| thread. V8's flags belong to the process, so every worker thread's isolate took them
| too: a password hashing thread, which allocates a little garbage per hash, slowly
| touched all of its two 16 MiB semi-spaces, about 25 MiB of RSS a thread over 20,000
| hashes, which the soak saw as memory growing outside the V8 heap
| (bench/results/soak_2026-11-29.md). An isolate reads these flags once, when it is
| created: lifting them after this thread's isolate exists leaves its young generation
| as configured and gives every later thread V8's own sizing.
*/
import { setFlagsFromString } from 'node:v8'

export function keepYoungGenerationFlagsToThisThread() {
  setFlagsFromString('--min-semi-space-size=0')
  setFlagsFromString('--max-semi-space-size=0')
}
