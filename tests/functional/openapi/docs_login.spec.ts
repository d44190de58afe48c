/*
| Issue 22 › 2: the whole flow can be tried from /docs in a browser. A developer opens
| the page on the service's own address, enters the Portal client's credentials, logs
| in, and calls a PAT route with the token the login returned, all by the page's own
| requests (Origin: the service itself, which is not among the client's allowed
| origins). A mistyped client secret is answered to the page as a 401, not held by
| the browser for its own password dialog (headless, a request that never ends).
|
| The renderer-specific steps (Swagger UI's authorize dialog and "Try it out") are in
| `docsPage` below; everything asserted is about the HTTP requests the page makes.
*/
import { test } from '@japa/runner'
import type { Browser, Page, Response } from 'playwright-core'
import { resetState } from '#tests/helpers/database'
import { createMerchantWithUser, createPortalClient } from '#tests/helpers/portal'
import { TEST_PORTAL_CLIENT_SECRET } from '#database/factories/portal_client_factory'
import { BROWSER_TEST_MS, launchChromium, newPage } from '#tests/helpers/browser'
import { serverOrigin } from '#tests/helpers/test_server'
import { route } from '#tests/helpers/routes'

/** What a person does on the reference page, in Swagger UI's terms. */
function docsPage(page: Page) {
  const dialog = page.locator('.modal-ux')
  const scheme = (name: string) =>
    dialog.locator('.auth-container').filter({ has: page.locator(`h4 code:text-is("${name}")`) })

  return {
    async open() {
      await page.goto(`${serverOrigin()}${route('openapi.page')}`)
      await page.locator('.opblock-tag').first().waitFor()
    },

    /** Enters credentials for security schemes (replacing those entered before). */
    async authorize(credentials: Record<string, string | { username: string; password: string }>) {
      await page.locator('.auth-wrapper button.authorize').click()
      for (const [name, value] of Object.entries(credentials)) {
        const form = scheme(name)
        const logout = form.getByRole('button', { name: 'Remove authorization' })
        if (await logout.count()) await logout.click()
        if (typeof value === 'string') {
          await form.locator('input').fill(value)
        } else {
          await form.getByLabel('auth-basic-username').fill(value.username)
          await form.getByLabel('auth-basic-password').fill(value.password)
        }
        await form.getByRole('button', { name: 'Apply credentials' }).click()
      }
      await dialog.locator('button.close-modal').click()
    },

    /** "Try it out" on the operation of `path`; resolves with the answer the page received. */
    async tryOut(operation: string, path: string, body?: object): Promise<Response> {
      const block = page.locator(`#${operation}`)
      if (!(await block.locator('.opblock-body').count())) {
        await block.locator('.opblock-summary').first().click()
      }
      // The expanded block renders after the click: wait for its try-out toggle
      // ("Try it out", or "Cancel" when already on) before reading which one it shows.
      const tryOut = block.getByRole('button', { name: 'Try it out' })
      const cancel = block.getByRole('button', { name: 'Cancel' })
      await tryOut.or(cancel).first().waitFor()
      if (await tryOut.count()) await tryOut.click()
      if (body) await block.locator('textarea.body-param__text').fill(JSON.stringify(body))
      const [answer] = await Promise.all([
        page.waitForResponse((response) => new URL(response.url()).pathname === path),
        block.locator('button.execute').click(),
      ])
      return answer
    },
  }
}

test.group('Logging in from /docs in a browser', (group) => {
  let browser: Browser
  group.setup(async () => {
    browser = await launchChromium()
    return () => browser.close()
  })
  group.each.setup(() => resetState())

  test('a mistyped client secret is a 401 on the page; then login and a PAT route work', async ({
    assert,
  }) => {
    // A Portal client like the demo one: its allowed origins are the Portal's, not this service's.
    const client = await createPortalClient({ allowedOrigins: ['http://localhost:5173'] })
    const { user, password } = await createMerchantWithUser()
    const login = { username: user.email, password }

    const page = await newPage(browser)
    const docs = docsPage(page)
    await docs.open()

    await docs.authorize({
      portalApplication: { username: client.clientId, password: 'mistyped-secret' },
      serviceApplication: 'merchant_portal',
    })
    const refused = await docs.tryOut('operations-Auth-login', route('auth.login'), login)
    assert.equal(refused.status(), 401)
    const refusal = await refused.json()
    assert.equal(refusal.error_code, 'ECOSYSTEM_CLIENT_UNAUTHENTICATED')

    await docs.authorize({
      portalApplication: { username: client.clientId, password: TEST_PORTAL_CLIENT_SECRET },
    })
    const loggedIn = await docs.tryOut('operations-Auth-login', route('auth.login'), login)
    assert.equal(
      await loggedIn.request().headerValue('origin'),
      serverOrigin(),
      'the page sent its own origin'
    )
    assert.equal(loggedIn.status(), 200)
    const session = await loggedIn.json()
    const pat = session.data.access_token as string

    await docs.authorize({ portalPat: pat })
    const me = await docs.tryOut('operations-Profile-getProfile', route('profile.show'))
    assert.equal(me.status(), 200)
    assert.equal(await me.request().headerValue('authorization'), `Bearer ${pat}`)
    const profile = await me.json()
    assert.equal(profile.data.email, user.email)
    await page.close()
  }).timeout(BROWSER_TEST_MS)
})
