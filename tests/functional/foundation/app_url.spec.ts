/*
| Issue 22 › 1: outside production an unset APP_URL follows HOST and PORT
| (app/support/service_url.ts), so the URLs the service hands out point at the
| server that made them, not at port 3333. The test environment sets no APP_URL
| (.env.test) and runs on HOST=127.0.0.1 and the PORT it is given.
*/
import { test } from '@japa/runner'
import { resetState } from '#tests/helpers/database'
import { signedInMember } from '#tests/helpers/portal'
import { clearLogoStorage, MERCHANT, uploadLogo } from '#tests/helpers/merchant'
import { tinyPng } from '#tests/helpers/images'
import { REQUEST_MS } from '#tests/helpers/server_process'
import { serverOrigin } from '#tests/helpers/test_server'

test.group('APP_URL follows HOST and PORT outside production', (group) => {
  group.each.setup(() => resetState())
  group.each.setup(() => clearLogoStorage())

  test("a merchant's logo_url is on this server's own port, and this server serves it", async ({
    client,
    assert,
  }) => {
    const admin = await signedInMember('administrator')
    const upload = await uploadLogo(client, admin, await tinyPng())
    upload.assertStatus(200)

    const merchant = await client.get(MERCHANT()).header('Authorization', admin.bearer)
    merchant.assertStatus(200)
    const logoUrl = merchant.body().data.logo_url as string
    const own = serverOrigin()
    assert.isTrue(logoUrl.startsWith(`${own}/media/logos/`), logoUrl)

    // Fetched as a browser would, by its absolute URL.
    const served = await fetch(logoUrl, { signal: AbortSignal.timeout(REQUEST_MS) })
    assert.equal(served.status, 200)
    assert.equal(served.headers.get('content-type'), 'image/png')
  })
})
