/*
| Reads the command that runs the server as deployed (`[NAME=value ...] node [--flag ...]
| bin/server.js`) out of a text: the `start` script, README › Deployment or
| `.ci/deploy_check`. The benches run their server with what it says, and a unit test
| checks that the three places say the same thing, through this one reading.
*/

export interface ServerCommand {
  /** The assignments before `node`, with the default of `${NAME:-default}` as the value. */
  environment: Record<string, string>
  flags: string[]
}

/** The first `... node ... bin/server.js` command in `text` (shell line continuations joined). */
export function serverCommand(text: string): ServerCommand {
  const joined = text.replace(/\\\n\s*/g, ' ')
  const match = /((?:[A-Z_]+=\S+\s+)*)node\s+((?:--\S+\s+)*)bin\/server\.js/.exec(joined)
  if (!match) throw new Error('no command running node bin/server.js')
  const environment: Record<string, string> = {}
  for (const [, name, value] of match[1].matchAll(/([A-Z_]+)=(\S+)/g)) {
    // `npm start` keeps a value the environment already sets: ${NAME:-default}.
    environment[name] = value.replace(/^\$\{[A-Z_]+:-(.*)\}$/, '$1')
  }
  return { environment, flags: match[2].trim().split(/\s+/).filter(Boolean) }
}
