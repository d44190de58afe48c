/*
| NODE_ENV when it is unset, decided by the entry point (bin/server.ts, bin/console.ts)
| before anything reads it: development for the TypeScript sources of a checkout, and
| production for the compiled build (`build/bin/server.js`, `build/ace.js`). A deployed
| build started without NODE_ENV therefore keeps production's refusals (no embedded
| database, no generated APP_KEY, only the Portal clients' own origins) instead of
| quietly running with development's defaults. A NODE_ENV that is set always wins.
*/
export function defaultNodeEnvironment(entryPointUrl: string): 'development' | 'production' {
  return new URL(entryPointUrl).pathname.endsWith('.ts') ? 'development' : 'production'
}
