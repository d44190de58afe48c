/*
| Worker threads and child processes run a module beside their caller's, of the same
| kind of file: TypeScript under the development loader (development, tests, ace),
| JavaScript in the build. Of this process's flags they take only the TypeScript
| loader, never the others (an inspector port, --cpu-prof, the development server's
| hot-reload hooks, which fail on a worker).
*/
import { extname } from 'node:path'

/** The module `name` beside `from` (pass `import.meta.url`), and the flags to run it with. */
export function siblingModule(from: string, name: string): { url: URL; execArgv: string[] } {
  const here = new URL(from)
  const extension = extname(here.pathname)
  return {
    url: new URL(`${name}${extension}`, here),
    execArgv: extension === '.ts' ? [`--import=${import.meta.resolve('@poppinss/ts-exec')}`] : [],
  }
}
