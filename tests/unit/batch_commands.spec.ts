import { test } from '@japa/runner'
import { BATCH_COMMANDS, commandNameOf } from '#console/batch_commands'

test.group('Batch operator commands (app/console/batch_commands.ts)', () => {
  test('the command is the first word of the command line that is not a flag', ({ assert }) => {
    assert.equal(commandNameOf(['history:purge', '--dry-run']), 'history:purge')
    assert.equal(commandNameOf(['--ansi', 'auth:prune']), 'auth:prune')
    assert.isUndefined(commandNameOf(['--help']))
    assert.isUndefined(commandNameOf([]))
  })

  test('they are the commands decisions.md §4 says work in batches', ({ assert }) => {
    assert.sameMembers(
      [...BATCH_COMMANDS],
      ['collections:import', 'history:purge', 'history:reproject', 'auth:prune']
    )
  })
})
