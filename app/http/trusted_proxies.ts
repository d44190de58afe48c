import type { IncomingMessage } from 'node:http'
import proxyAddr from 'proxy-addr'

/**
 * Client IPs (rate limits, audit records, the `client.address` of exported spans)
 * come from X-Forwarded-For only through the proxies listed in TRUSTED_PROXIES
 * (proxy-addr syntax, comma separated: `loopback`, CIDRs, IPs). By default no proxy
 * is trusted and the socket address is the client. The `Forwarded` header is never
 * read.
 */
export function trustProxyFrom(
  setting: string | undefined
): (address: string, hop: number) => boolean {
  const entries = (setting ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
  return entries.length > 0 ? proxyAddr.compile(entries) : () => false
}

/**
 * The client address of `request` by the rule above, for code that sees the Node
 * request before the framework does (the HTTP instrumentation of start/tracing.ts);
 * the framework's `request.ip()` applies the same rule (config/app.ts).
 */
export function clientAddressOf(
  request: IncomingMessage,
  trust: (address: string, hop: number) => boolean
): string {
  return proxyAddr(request, trust)
}
