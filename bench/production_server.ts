/*
| The server under test of the bench scripts: the production build (`npm run build`),
| as deployed (the node flags and environment of `npm start`), with the limiter on but scaled out of the way unless `env` says
| otherwise (`env` is added last: `RATE_LIMIT_MULTIPLIER: '1'` enforces the limits).
| BENCH_NODE_ARGS adds node flags (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to
| profile it); BENCH_LOG_LEVEL=info keeps its request log (one line per request, with
| its duration) on the bench's standard output.
*/
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import { type ServerCommand, serverCommand } from './deployment_command.js'
import './exit_on_signal.js'

/**
 * The command `npm start` runs (the `start` script of `packageJson`): the node flags and
 * glibc's malloc settings README › Deployment runs the server with, so the benches run
 * it as deployed.
 */
export function deploymentCommand(packageJson = 'package.json'): ServerCommand {
  const { scripts } = JSON.parse(readFileSync(packageJson, 'utf8')) as {
    scripts: { start: string }
  }
  return serverCommand(scripts.start)
}

/** Starts the build on 127.0.0.1:`port` and resolves once `/health/live` answers. */
export async function startProductionServer(options: {
  port: number
  appKey: string
  env?: Record<string, string>
}) {
  if (!existsSync('build/bin/server.js')) throw new Error('run `npm run build` first')
  const server = spawn(
    'node',
    [
      ...deploymentCommand().flags,
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      'bin/server.js',
    ],
    {
      cwd: 'build',
      env: {
        ...process.env,
        NODE_ENV: 'production',
        APP_KEY: options.appKey,
        PORT: String(options.port),
        HOST: '127.0.0.1',
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
        RATE_LIMIT_MULTIPLIER: '100000',
        // As README › Deployment runs it (glibc's malloc arenas).
        ...deploymentCommand().environment,
        ...options.env,
      },
      stdio: 'inherit',
    }
  )
  const base = `http://127.0.0.1:${options.port}`
  const stop = () => server.kill('SIGTERM')
  try {
    for (let attempt = 0; ; attempt++) {
      if (attempt > 300) throw new Error('server did not start')
      const live = await fetch(`${base}/health/live`).catch(() => null)
      if (live?.ok) break
      await delay(100)
    }
  } catch (error) {
    stop()
    throw error
  }
  return { base, stop }
}
