/*
| Request ids (issue 38 › 4): the id of a request is the service's own, generated per
| request. A caller's X-Request-Id never becomes an audit record's `request_id` (two
| merchants sending one id would otherwise file their records under one id); a
| well-formed one is kept beside it as `caller_request_id`.
*/
import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import { resetState } from '#tests/helpers/database'
import { captureLogs } from '#tests/helpers/logs'
import { signedInMember } from '#tests/helpers/portal'
import { auditRows, uniqueLabel } from '#tests/helpers/machine'
import { route } from '#tests/helpers/routes'

const CALLER_ID = 'merchant-1-request.42'

/** An audited refusal (wrong current password on a machine client issue) sent with `requestId`. */
function auditedRefusal(client: ApiClient, bearer: string, requestId: string) {
  return client
    .post(route('merchant.machine_clients.store'))
    .header('Authorization', bearer)
    .header('X-Request-Id', requestId)
    .json({ label: uniqueLabel(), reason: 'A reason long enough', current_password: 'wrong' })
}

test.group('Request ids are the service’s own', (group) => {
  group.each.setup(() => resetState())

  test('an audit record’s request_id is never the caller’s X-Request-Id, which is kept as caller_request_id', async ({
    client,
    assert,
  }) => {
    const first = await signedInMember()
    const second = await signedInMember()
    const responses = [
      await auditedRefusal(client, first.bearer, CALLER_ID),
      await auditedRefusal(client, second.bearer, CALLER_ID),
    ]
    for (const response of responses) response.assertStatus(422)
    const ownIds = responses.map((response) => response.header('x-request-id'))
    for (const id of ownIds) assert.match(id ?? '', /^[0-9a-f-]{36}$/)
    assert.notEqual(ownIds[0], ownIds[1])

    const rows = await auditRows()
    assert.lengthOf(rows, 2)
    assert.sameMembers(
      rows.map((row: { request_id: string }) => row.request_id),
      ownIds
    )
    for (const row of rows) {
      assert.notEqual(row.request_id, CALLER_ID)
      assert.equal(row.metadata.caller_request_id, CALLER_ID)
    }
  })

  test('a malformed X-Request-Id is dropped: the record has the service’s id and no caller_request_id', async ({
    client,
    assert,
  }) => {
    const member = await signedInMember()
    const response = await auditedRefusal(client, member.bearer, `${'r'.repeat(64)};x`)
    response.assertStatus(422)
    const [row] = await auditRows()
    assert.equal(row.request_id, response.header('x-request-id'))
    assert.notProperty(row.metadata ?? {}, 'caller_request_id')
  })

  test('the request’s log lines carry the service’s id as request_id and the caller’s as caller_request_id', async ({
    client,
    assert,
    cleanup,
  }) => {
    const logs = captureLogs()
    cleanup(() => logs.restore())
    const response = await client.get(route('health.live')).header('X-Request-Id', CALLER_ID)
    response.assertStatus(200)
    const ownId = response.header('x-request-id')
    assert.notEqual(ownId, CALLER_ID)

    const line = logs.lines
      .map((entry) => JSON.parse(entry))
      .find((entry) => entry.args.includes('request completed'))
    assert.deepInclude(line?.bindings, { request_id: ownId, caller_request_id: CALLER_ID })
  })
})
