import env from '#start/env'
import { defineConfig } from '@adonisjs/redis'

/** Redis holds rate limits when REDIS_URL is set; connections are opened lazily. */
const redisUrl = new URL(env.get('REDIS_URL') ?? 'redis://127.0.0.1:6379/0')

const redisConfig = defineConfig({
  connection: 'main',
  connections: {
    main: {
      host: redisUrl.hostname,
      port: Number(redisUrl.port || 6379),
      username: redisUrl.username ? decodeURIComponent(redisUrl.username) : undefined,
      password: redisUrl.password ? decodeURIComponent(redisUrl.password) : undefined,
      db: Number(redisUrl.pathname.replace('/', '') || 0),
      keyPrefix: '',
      lazyConnect: true,
      // An outage: reconnect for ever, backing off to at most one attempt
      // a second; meanwhile a command fails within a second (503 SERVICE_UNAVAILABLE)
      // instead of hanging, and traffic resumes by itself when Redis is back.
      maxRetriesPerRequest: 1,
      commandTimeout: 1_000,
      retryStrategy(times) {
        return Math.min(times * 100, 1_000)
      },
    },
  },
})

export default redisConfig

declare module '@adonisjs/redis/types' {
  export interface RedisConnections extends InferConnections<typeof redisConfig> {}
}
