/*
| app/limits/limits.ts: every limit of the contract's Limits table, each overridable by
| its env variable and scaled by RATE_LIMIT_MULTIPLIER.
*/
import { test } from '@japa/runner'
import { LIMITS, requestsPerMinute } from '#limits/limits'
import { overrideEnv } from '#tests/helpers/env'

test.group('requestsPerMinute', (group) => {
  let restore: () => void
  group.each.setup(() => {
    restore = overrideEnv({
      RATE_LIMIT_LOGIN_PER_MINUTE: undefined,
      RATE_LIMIT_API_PER_MINUTE: undefined,
      RATE_LIMIT_MULTIPLIER: undefined,
    })
    return () => restore()
  })

  test("defaults are the contract's numbers", ({ assert }) => {
    const expected: Record<keyof typeof LIMITS, number> = {
      api: 60,
      public: 30,
      login: 5,
      profileUpdate: 3,
      emailResend: 3,
      otpVerify: 10,
      passwordChange: 6,
      machineClientMutation: 5,
      credentialConsume: 10,
      integrationKeyMutation: 5,
      teamMutation: 5,
      invitationMutation: 5,
      invitationAcceptance: 5,
      invitationAcceptanceIp: 5,
      oauthToken: 30,
    }
    for (const [name, perMinute] of Object.entries(expected)) {
      assert.equal(requestsPerMinute(name as keyof typeof LIMITS), perMinute, name)
    }
    const variables = Object.values(LIMITS).map((limit) => limit.env)
    assert.lengthOf(new Set(variables), variables.length)
    for (const variable of variables) assert.match(variable, /^RATE_LIMIT_[A-Z_]+_PER_MINUTE$/)
  })

  test('the env variable of a limit overrides its number', ({ assert }) => {
    overrideEnv({ RATE_LIMIT_LOGIN_PER_MINUTE: '12' })
    assert.equal(requestsPerMinute('login'), 12)
    assert.equal(requestsPerMinute('api'), 60)
  })

  test('the multiplier scales every limit, overrides included, never below 1', ({ assert }) => {
    overrideEnv({ RATE_LIMIT_MULTIPLIER: '3' })
    assert.equal(requestsPerMinute('login'), 15)
    assert.equal(requestsPerMinute('api'), 180)
    overrideEnv({ RATE_LIMIT_LOGIN_PER_MINUTE: '3', RATE_LIMIT_MULTIPLIER: '2.5' })
    assert.equal(requestsPerMinute('login'), 7)
    overrideEnv({ RATE_LIMIT_MULTIPLIER: '0.01' })
    assert.equal(requestsPerMinute('login'), 1)
  })

  test('unusable values fall back to the defaults', ({ assert }) => {
    for (const value of ['', 'abc', '0', '-5', 'NaN', 'Infinity']) {
      overrideEnv({ RATE_LIMIT_LOGIN_PER_MINUTE: value, RATE_LIMIT_MULTIPLIER: value })
      assert.equal(requestsPerMinute('login'), 5, value)
    }
  })
})
