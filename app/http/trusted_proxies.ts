import proxyAddr from 'proxy-addr'

/**
 * Client IPs (rate limits, audit) come from X-Forwarded-For only through the proxies
 * listed in TRUSTED_PROXIES (proxy-addr syntax, comma separated: `loopback`, CIDRs,
 * IPs). By default no proxy is trusted and the socket address is the client.
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
