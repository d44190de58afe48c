/*
| Boots the application (config, database, encryption under APP_KEY) inside a bench
| script, the way bin/console.ts does for ace, without running a command. Snapshots
| sealed here open in the server only when both use the same APP_KEY (in development,
| tmp/app_key is shared by every entry point).
*/
import 'reflect-metadata'
import { Ignitor } from '@adonisjs/core'

const APP_ROOT = new URL('../', import.meta.url)

export async function bootApp() {
  process.env.NODE_ENV ??= 'development'
  const ignitor = new Ignitor(APP_ROOT, {
    importer: (filePath: string) =>
      filePath.startsWith('./') || filePath.startsWith('../')
        ? import(new URL(filePath, APP_ROOT).href)
        : import(filePath),
  })
  const app = ignitor.createApp('console')
  app.booting(async () => {
    const { prepareRuntime } = await import('#start/runtime')
    await prepareRuntime(app)
  })
  await app.init()
  await app.boot()
  return {
    app,
    /** Closes the database pool (and an embedded cluster) so the script can exit. */
    shutdown: () => app.terminate(),
  }
}
