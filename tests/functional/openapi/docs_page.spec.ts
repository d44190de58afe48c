/*
| Issue 10, browser check of GET /docs: Chromium driven by playwright-core
| (tests/helpers/browser.ts). The page must render
| the endpoint groups and an operation's error codes from /openapi.json, load
| nothing from another origin, and trip no Content-Security-Policy rule. A
| screenshot is saved under tmp/ for people to look at.
*/
import { mkdir } from 'node:fs/promises'
import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import type { Browser } from 'playwright-core'
import { BROWSER_TEST_MS, launchChromium, newPage } from '#tests/helpers/browser'
import { serverOrigin } from '#tests/helpers/test_server'
import { route } from '#tests/helpers/routes'

const GROUPS = [
  'Auth',
  'Profile',
  'Merchant',
  'Machine clients',
  'Integration keys',
  'Team',
  'Collections',
  'Reporting',
  'Machine token',
  'Merchant integration API',
  'Service',
]

test.group('GET /docs in a browser', (group) => {
  let browser: Browser
  group.setup(async () => {
    browser = await launchChromium()
    return () => browser.close()
  })

  test('shows every endpoint group and an operation with its error codes, offline and within its CSP', async ({
    assert,
  }) => {
    const origin = serverOrigin()
    const page = await newPage(browser)
    const foreignRequests: string[] = []
    const cspViolations: string[] = []
    page.on('request', (request) => {
      const url = request.url()
      if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) foreignRequests.push(url)
    })
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text()))
        cspViolations.push(message.text())
    })
    page.on('pageerror', (error) => cspViolations.push(`page error: ${error.message}`))

    await page.goto(`${origin}${route('openapi.page')}`, { waitUntil: 'networkidle' })
    await page.locator('.opblock-tag').first().waitFor()

    const groups = await page
      .locator('.opblock-tag')
      .evaluateAll((nodes) =>
        nodes.map((node) => (node.getAttribute('data-tag') ?? node.textContent ?? '').trim())
      )
    for (const name of GROUPS) {
      assert.isTrue(
        groups.some((found) => found.startsWith(name)),
        `endpoint group ${name} is shown`
      )
    }

    // One operation, opened: the role change lists its statuses and exact error codes.
    const operation = page.locator('#operations-Team-changeMemberRole')
    await operation.locator('.opblock-summary').first().click()
    const responses = operation.locator('.responses-table').first()
    await responses.waitFor()
    const text = await responses.innerText()
    for (const expected of [
      '200',
      '401',
      '403',
      '404',
      '409',
      '422',
      '429',
      'LAST_ADMINISTRATOR',
      'FORBIDDEN',
    ]) {
      assert.include(text, expected)
    }
    assert.include(await operation.innerText(), 'teamMutation')

    await mkdir(app.makePath('tmp'), { recursive: true })
    await operation.scrollIntoViewIfNeeded()
    await page.screenshot({ path: app.makePath('tmp/docs-page.png') })

    assert.deepEqual(foreignRequests, [], 'no request leaves the service')
    assert.deepEqual(cspViolations, [], 'no CSP violation or page error')
    await page.close()
  }).timeout(BROWSER_TEST_MS)
})
