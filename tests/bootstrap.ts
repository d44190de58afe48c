import { assert } from '@japa/assert'
import { apiClient, ApiClient } from '@japa/api-client'
import app from '@adonisjs/core/services/app'
import type { Config } from '@japa/runner/types'
import { pluginAdonisJS } from '@japa/plugin-adonisjs'
import testUtils from '@adonisjs/core/services/test_utils'
import { assertDocumentedResponse } from '#tests/helpers/openapi_contract'
import { createPortalHttpServer } from '#http/client_error'

/*
| Functional tests talk HTTP to the real server on a real PostgreSQL (embedded when
| DATABASE_URL is unset). Every test starts from empty tables (tests/helpers/database.ts)
| so that racing requests see real transactions, not one shared test transaction.
*/
/*
| Every api-client response of every test is checked against the OpenAPI document
| (tests/helpers/openapi_contract.ts): an undocumented status, field, error code or
| required header fails the test that received it.
*/
ApiClient.teardown(assertDocumentedResponse)

export const plugins: Config['plugins'] = [assert(), pluginAdonisJS(app), apiClient()]

export const runnerHooks: Required<Pick<Config, 'setup' | 'teardown'>> = {
  setup: [() => testUtils.db().migrate()],
  teardown: [],
}

export const configureSuite: Config['configureSuite'] = (suite) => {
  if (suite.name === 'functional') {
    // The same Node server as bin/server.ts: parser refusals answer in the JSON envelope.
    return suite.setup(() => testUtils.httpServer().start(createPortalHttpServer))
  }
}
