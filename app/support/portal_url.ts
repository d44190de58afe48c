/*
| The Portal origin (decisions.md §3 PORTAL_URL): where password-reset links must
| point, where invitation links go, and where the email verification link
| redirects. Read at call time, so a deployment (or a test) that changes it is
| seen at once; missing or invalid configuration is the contract's 503.
|
| A usable PORTAL_URL is an absolute http(s) URL naming an origin: no userinfo,
| query or fragment, and no path other than "/".
*/
import settings from '#config/settings'
import ApiError from '#exceptions/api_error'

export interface PortalOrigin {
  /** `https://portal.example` (no trailing slash). */
  origin: string
  protocol: 'http:' | 'https:'
  hostname: string
  /** Effective port: the explicit one, else 80/443. */
  port: number
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 }
// Only printable ASCII without spaces or backslashes: the WHATWG parser silently
// "repairs" those, so what is compared would differ from what was sent.
const PLAIN_URL = /^[!-[\]-~]+$/

function effectivePort(url: URL) {
  return url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port)
}

/** Parses an absolute http(s) URL strictly; null when it is not one. */
export function parseHttpUrl(raw: string): URL | null {
  if (!PLAIN_URL.test(raw) || !/^https?:\/\//i.test(raw)) return null
  try {
    const url = new URL(raw)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
    if (url.hostname === '') return null
    return url
  } catch {
    return null
  }
}

/** Whether the raw text carries userinfo, a query or a fragment (even empty ones). */
function hasUserinfoQueryOrFragment(raw: string, url: URL) {
  const authority = raw.replace(/^https?:\/\//i, '').split('/')[0]
  return (
    authority.includes('@') ||
    url.username !== '' ||
    url.password !== '' ||
    raw.includes('?') ||
    raw.includes('#')
  )
}

/** Interprets a PORTAL_URL value; null when missing or unusable. Pure (unit-tested). */
export function parsePortalOrigin(raw: string | undefined | null): PortalOrigin | null {
  if (typeof raw !== 'string') return null
  const trimmed = raw.trim()
  const url = parseHttpUrl(trimmed)
  if (!url || hasUserinfoQueryOrFragment(trimmed, url) || url.pathname !== '/') return null
  return {
    origin: url.origin,
    protocol: url.protocol as PortalOrigin['protocol'],
    hostname: url.hostname,
    port: effectivePort(url),
  }
}

/** The configured Portal origin, or null when PORTAL_URL is missing or invalid. */
export function portalOrigin(): PortalOrigin | null {
  return parsePortalOrigin(settings.portalUrl())
}

/** The configured Portal origin; 503 SERVICE_UNAVAILABLE when it is missing or invalid. */
export function requirePortalOrigin(): PortalOrigin {
  const origin = portalOrigin()
  if (!origin) {
    throw ApiError.serviceUnavailable('The Portal address is not configured.')
  }
  return origin
}

/**
 * Whether `raw` is a URL on the Portal origin (same scheme, host and effective
 * port), without userinfo, query or fragment; any path is allowed. Used for the
 * reset-link `reset_url`.
 */
export function isPortalPageUrl(raw: string, origin: PortalOrigin): boolean {
  const url = parseHttpUrl(raw)
  if (!url || hasUserinfoQueryOrFragment(raw, url)) return false
  return (
    url.protocol === origin.protocol &&
    url.hostname === origin.hostname &&
    effectivePort(url) === origin.port
  )
}

/**
 * An absolute URL on the Portal origin: `path` (starting with "/") plus optional
 * query values and fragment. E.g. portalLink(origin, '/team/invitations/accept',
 * { hash: `token=${proof}` }).
 */
export function portalLink(
  origin: PortalOrigin,
  path: string,
  options: { query?: Record<string, string>; hash?: string } = {}
): string {
  const url = new URL(path.startsWith('/') ? path : `/${path}`, `${origin.origin}/`)
  for (const [name, value] of Object.entries(options.query ?? {})) {
    url.searchParams.append(name, value)
  }
  if (options.hash !== undefined) url.hash = options.hash
  return url.toString()
}
