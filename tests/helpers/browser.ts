/*
| Debian's Chromium (/usr/bin/chromium, which .ci/run installs when missing;
| CHROMIUM_PATH names another binary) driven by playwright-core, for the tests of the
| /docs page. Without it a group's setup fails once, naming the package to install
| (issue 21 › 6).
*/
import { constants } from 'node:fs'
import { access, stat } from 'node:fs/promises'
import { chromium, type Browser } from 'playwright-core'

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'

/** The browser binary, or one error that says how to install it. */
async function chromiumExecutable() {
  try {
    await access(CHROMIUM, constants.X_OK)
    const info = await stat(CHROMIUM)
    if (info.isFile()) return CHROMIUM
  } catch {
    // Missing or not executable: the error below says what to do.
  }
  throw new Error(
    `The /docs browser test needs Chromium, and ${CHROMIUM} is not an executable file. ` +
      'On Debian: apt-get install chromium (it provides /usr/bin/chromium). ' +
      'Elsewhere, set CHROMIUM_PATH to a Chromium or Chrome binary.'
  )
}

/**
 * The bound of each step in the browser (launch, navigation, a locator appearing, a
 * click, a response): Swagger UI renders the whole document in a few seconds on an
 * idle machine and many times that on a busy one. Generous, so that only a step that
 * never happens fails.
 */
export const BROWSER_STEP_MS = 120_000
/** The bound of a whole browser test, several such steps. */
export const BROWSER_TEST_MS = 600_000

export async function launchChromium() {
  return chromium.launch({
    executablePath: await chromiumExecutable(),
    args: CHROMIUM_ARGS,
    timeout: BROWSER_STEP_MS,
  })
}

/** A page of `browser` whose every wait is bounded by BROWSER_STEP_MS. */
export async function newPage(browser: Browser) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } })
  page.setDefaultTimeout(BROWSER_STEP_MS)
  return page
}
