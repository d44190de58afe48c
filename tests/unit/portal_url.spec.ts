import { test } from '@japa/runner'
import { isPortalPageUrl, parsePortalOrigin, portalLink } from '#support/portal_url'

test.group('PORTAL_URL parsing', () => {
  test('accepts an http(s) origin, with or without a trailing slash and explicit port', ({
    assert,
  }) => {
    assert.deepEqual(parsePortalOrigin('https://portal.example'), {
      origin: 'https://portal.example',
      protocol: 'https:',
      hostname: 'portal.example',
      port: 443,
    })
    assert.equal(parsePortalOrigin('http://localhost:5173/')?.port, 5173)
    assert.equal(
      parsePortalOrigin(' https://PORTAL.example:443 ')?.origin,
      'https://portal.example'
    )
  })

  test('refuses missing, relative, non-http, path, query, fragment or userinfo values', ({
    assert,
  }) => {
    for (const value of [
      undefined,
      null,
      '',
      'portal.example',
      '/portal',
      'ftp://portal.example',
      'javascript:alert(1)',
      'https://portal.example/app',
      'https://portal.example/?x=1',
      'https://portal.example/?',
      'https://portal.example/#a',
      'https://user:pw@portal.example',
      'https://@portal.example',
      'https://portal.example\\@evil.example',
      'https://',
      'https://portal example',
    ]) {
      assert.isNull(parsePortalOrigin(value as string), String(value))
    }
  })
})

test.group('Portal page URLs (reset_url)', () => {
  const origin = parsePortalOrigin('https://portal.example')!

  test('same scheme, host and effective port; any path', ({ assert }) => {
    for (const value of [
      'https://portal.example',
      'https://portal.example/',
      'https://portal.example:443/reset',
      'https://Portal.Example/a/b/c',
    ]) {
      assert.isTrue(isPortalPageUrl(value, origin), value)
    }
  })

  test('anything else is refused', ({ assert }) => {
    for (const value of [
      'http://portal.example/reset',
      'https://portal.example:444/reset',
      'https://portal.example.evil/reset',
      'https://evil.example/https://portal.example',
      'https://a@portal.example/reset',
      'https://portal.example/reset?',
      'https://portal.example/reset?x=1',
      'https://portal.example/reset#',
      'https://portal.example\\reset',
      ' https://portal.example/reset',
      'https://portal.example/re set',
    ]) {
      assert.isFalse(isPortalPageUrl(value, origin), value)
    }
  })

  test('portalLink builds links on the origin with query values and fragment', ({ assert }) => {
    assert.equal(
      portalLink(origin, '/', { query: { email_verification: 'verified' } }),
      'https://portal.example/?email_verification=verified'
    )
    assert.equal(
      portalLink(origin, '/team/invitations/accept', { hash: 'token=abc' }),
      'https://portal.example/team/invitations/accept#token=abc'
    )
  })
})
