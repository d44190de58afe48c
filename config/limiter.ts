import env from '#start/env'
import { defineConfig, stores } from '@adonisjs/limiter'

/** PostgreSQL keeps rate limits by default; Redis when REDIS_URL is set (decisions.md §3). */
const limiterConfig = defineConfig({
  default: env.get('REDIS_URL') ? 'redis' : 'database',
  stores: {
    database: stores.database({ tableName: 'rate_limits' }),
    redis: stores.redis({ connectionName: 'main' }),
  },
})

export default limiterConfig

declare module '@adonisjs/limiter/types' {
  export interface LimitersList extends InferLimiters<typeof limiterConfig> {}
}
