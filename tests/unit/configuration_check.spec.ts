/*
| start/configuration_check.ts: which set values stop the service at boot.
*/
import { test } from '@japa/runner'
import { configurationProblems } from '#start/configuration_check'

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
      ]
    )
  })
})
