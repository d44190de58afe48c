/*
| The embedded cluster's default ports (start/embedded_postgres.ts) lie outside the
| range Linux hands out to outgoing connections: one of those could hold the port when
| the cluster starts, and `npm run dev` or the tests would then fail to start it.
*/
import { test } from '@japa/runner'
import { readFile } from 'node:fs/promises'
import { EMBEDDED_PORTS } from '#start/embedded_postgres'

/** Linux's default ephemeral range, used where /proc does not say (another system). */
const LINUX_DEFAULT_RANGE = [32768, 60999]

async function ephemeralPortRange(): Promise<number[]> {
  try {
    const text = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
    return text.trim().split(/\s+/).map(Number)
  } catch {
    return LINUX_DEFAULT_RANGE
  }
}

test.group('Embedded PostgreSQL › its default ports', () => {
  test('lie outside the ephemeral ports of this machine and of Linux by default, and differ', async ({
    assert,
  }) => {
    const ranges = [await ephemeralPortRange(), LINUX_DEFAULT_RANGE]
    const ports = Object.values(EMBEDDED_PORTS)
    for (const port of ports) {
      for (const [low, high] of ranges) {
        assert.isFalse(port >= low && port <= high, `${port} is within ${low}-${high}`)
      }
    }
    assert.equal(new Set(ports).size, ports.length)
  })
})
