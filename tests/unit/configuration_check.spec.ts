/*
| start/configuration_check.ts: which set values stop the service at boot.
*/
import { test } from '@japa/runner'
import {
  ConfigurationError,
  configurationErrorProblems,
  configurationErrorText,
  configurationProblems,
} from '#start/configuration_check'

test.group('Configuration refused at boot', () => {
  test('valid and unset values pass', ({ assert }) => {
    assert.deepEqual(
      configurationProblems({
        PAT_TTL_MINUTES: '60',
        RESET_LINK_COOLDOWN_MINUTES: '60',
        RESET_LINK_MAILS_PER_HOUR: '1',
        MACHINE_TOKEN_TTL_SECONDS: '3600',
        HISTORY_RETENTION_MONTHS: '1200',
        RATE_LIMIT_MULTIPLIER: '0.5',
        RATE_LIMIT_LOGIN_PER_MINUTE: '5',
        REPORTING_DEFAULT_TIMEZONE: 'America/New_York',
        REQUEST_TIMEOUT_SECONDS: '3600',
        SMTP_SEND_TIMEOUT_SECONDS: '600',
        KEEP_ALIVE_TIMEOUT_SECONDS: '3600',
        MAX_CONNECTIONS: '1000000',
        BATCH_COMMAND_NICE: '0',
        UNRELATED: '-1',
        MACHINE_API_ENABLED: '',
      }),
      []
    )
  })

  test('each value that cannot mean what its variable says is named', ({ assert }) => {
    assert.deepEqual(
      configurationProblems({
        PAT_TTL_MINUTES: '-5',
        RESET_LINK_COOLDOWN_MINUTES: '61',
        RESET_LINK_MAILS_PER_HOUR: '0',
        MACHINE_TOKEN_TTL_SECONDS: '0',
        HISTORY_RETENTION_MONTHS: '1201',
        RATE_LIMIT_MULTIPLIER: '0',
        RATE_LIMIT_API_PER_MINUTE: 'lots',
        REPORTING_DEFAULT_TIMEZONE: 'BST',
        REQUEST_TIMEOUT_SECONDS: '0',
        SMTP_SEND_TIMEOUT_SECONDS: '601',
        KEEP_ALIVE_TIMEOUT_SECONDS: '0',
        MAX_CONNECTIONS: '0',
        BATCH_COMMAND_NICE: '20',
      }),
      [
        'PAT_TTL_MINUTES must be a whole number from 1 up',
        'RESET_LINK_COOLDOWN_MINUTES must be a whole number from 1 to 60',
        'RESET_LINK_MAILS_PER_HOUR must be a whole number from 1 to 60',
        'MACHINE_TOKEN_TTL_SECONDS must be a whole number from 1 up',
        'HISTORY_RETENTION_MONTHS must be a whole number from 1 to 1200',
        'RATE_LIMIT_MULTIPLIER must be a number greater than 0',
        'RATE_LIMIT_API_PER_MINUTE must be a number greater than 0',
        'REPORTING_DEFAULT_TIMEZONE must be an IANA time zone name such as Asia/Manila',
        'REQUEST_TIMEOUT_SECONDS must be a whole number from 1 to 3600',
        'SMTP_SEND_TIMEOUT_SECONDS must be a whole number from 1 to 600',
        'KEEP_ALIVE_TIMEOUT_SECONDS must be a whole number from 1 to 3600',
        'MAX_CONNECTIONS must be a whole number from 1 to 1000000',
        'BATCH_COMMAND_NICE must be a whole number from 0 to 19',
      ]
    )
  })
})

/** An error shaped as start/env.ts's validation throws it (AdonisJS env). */
function envValidationError(help: string[]) {
  return Object.assign(new Error('Validation failed for one or more environment variables'), {
    code: 'E_INVALID_ENV_VARIABLES',
    help: help.join('\n'),
  })
}

test.group('Configuration errors read back as one line per problem', () => {
  test('a ConfigurationError stands for its problems', ({ assert }) => {
    const error = new ConfigurationError(['APP_KEY is required in production', 'X must be y'])
    assert.deepEqual(configurationErrorProblems(error), [
      'APP_KEY is required in production',
      'X must be y',
    ])
  })

  test("start/env.ts's refusals name the variable and leave its value out", ({ assert }) => {
    const error = envValidationError([
      '- "PORT" env variable must be a number (Current value: "secret-ish")',
      '- "MAIL_MAILER" env variable must be one of "smtp,outbox" (Current value: "x")',
      '- Value for environment variable "APP_URL" must be a valid URL, instead received "a\nb"',
      '- Missing environment variable "NODE_ENV"',
    ])
    assert.deepEqual(configurationErrorProblems(error), [
      'PORT must be a number',
      'MAIL_MAILER must be one of "smtp,outbox"',
      'APP_URL must be a valid URL',
      'NODE_ENV is required',
    ])
  })

  test('any other error is not a configuration error', ({ assert }) => {
    assert.isNull(configurationErrorProblems(new Error('connect ECONNREFUSED')))
    assert.isNull(configurationErrorProblems('APP_KEY must be at least 32 characters'))
    assert.isNull(configurationErrorProblems(Object.assign(new Error('x'), { code: 'E_OTHER' })))
  })

  test('each problem is printed on a line of its own, prefixed', ({ assert }) => {
    assert.equal(
      configurationErrorText(['A must be b', 'C is required']),
      'configuration error: A must be b\nconfiguration error: C is required\n'
    )
  })
})
