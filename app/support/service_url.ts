/*
| Where this service is reached: its public base URL (APP_URL: logo URLs, the signed
| email link, the token URL) and, outside production, the origins of its own pages.
|
| Production uses APP_URL, the address the outside world knows (unset, the
| documented http://localhost:3333). In development and test an unset APP_URL is
| derived from the listen address (HOST, PORT), so that `PORT=3633 npm run dev` gives
| logo URLs on port 3633, not on another service's default port. A wildcard HOST
| (0.0.0.0, ::) is reached as localhost.
*/
import settings from '#config/settings'

export interface ServiceAddress {
  environment: 'development' | 'production' | 'test'
  /** APP_URL, when set. */
  appUrl?: string
  /** HOST, when set (the server listens on 0.0.0.0 otherwise). */
  host?: string
  /** PORT, when set (the server listens on 3333 otherwise). */
  port?: number
}

const DEFAULT_HOST = '0.0.0.0'
const DEFAULT_PORT = 3333
const PRODUCTION_FALLBACK = `http://localhost:${DEFAULT_PORT}`

/** Listening on every interface: a browser on this machine reaches it as localhost. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]'])
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]'])

/** A host as it is written in a URL: IPv6 literals in brackets. */
function urlHost(host: string) {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

/**
 * This process's address, from the environment. start/runtime.ts sets none of these
 * variables, so modules may read it when imported, before the app boots.
 */
export function configuredAddress(): ServiceAddress {
  return {
    environment: settings.environment(),
    appUrl: settings.appUrl(),
    host: settings.host(),
    port: settings.port(),
  }
}

/** The public base URL, without a trailing slash. */
export function publicBaseUrl(address: ServiceAddress): string {
  if (address.appUrl) return address.appUrl.replace(/\/+$/, '')
  if (address.environment === 'production') return PRODUCTION_FALLBACK
  const host = address.host || DEFAULT_HOST
  const port = address.port ?? DEFAULT_PORT
  return `http://${WILDCARD_HOSTS.has(host) ? 'localhost' : urlHost(host)}:${port}`
}

/**
 * The origins a browser sends from this service's own pages (`/docs`), outside
 * production: APP_URL's, and the listen address's, under each name a browser on this
 * machine uses for a wildcard or loopback address. Production has none: there, a
 * Portal client's allowed origins are exactly the ones it was created with.
 */
export function ownOrigins(address: ServiceAddress): string[] {
  if (address.environment === 'production') return []
  const origins = new Set<string>()
  const appUrl = address.appUrl ? new URL(address.appUrl) : undefined
  if (appUrl && (appUrl.protocol === 'http:' || appUrl.protocol === 'https:')) {
    origins.add(appUrl.origin)
  }
  const host = address.host || DEFAULT_HOST
  const port = address.port ?? DEFAULT_PORT
  const names =
    WILDCARD_HOSTS.has(host) || LOOPBACK_HOSTS.has(host)
      ? ['localhost', '127.0.0.1', '[::1]']
      : [urlHost(host)]
  for (const name of names) origins.add(new URL(`http://${name}:${port}`).origin)
  return [...origins]
}
