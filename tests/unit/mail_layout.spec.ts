import { test } from '@japa/runner'
import { escapeHtml, renderHtml, renderText } from '#mails/mail_layout'
import EmailVerificationMail from '#mails/email_verification_mail'

test.group('Mail layout', () => {
  test('escapes every interpolated value in HTML', ({ assert }) => {
    assert.equal(
      escapeHtml(`<a href="x">'&'</a>`),
      '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;'
    )
    const html = renderHtml('T', [{ link: 'https://x.example/?a=1&b="2"', label: '<b>go</b>' }])
    assert.include(html, 'href="https://x.example/?a=1&amp;b=&quot;2&quot;"')
    assert.include(html, '&lt;b&gt;go&lt;/b&gt;')
  })

  test('the text part carries the same links and codes', ({ assert }) => {
    const text = renderText([
      { paragraph: 'Hi' },
      { code: '012345' },
      { link: 'https://x/y', label: 'Open' },
    ])
    assert.include(text, '012345')
    assert.include(text, 'https://x/y')
  })

  test('the verification mail has a text and an HTML part with the code and the link', async ({
    assert,
  }) => {
    const sent = new EmailVerificationMail(
      'new@example.test',
      '001234',
      'https://svc/v?a=1&b=2',
      15
    )
    await sent.build()
    const message = sent.message.toJSON().message
    assert.deepEqual(message.to, ['new@example.test'])
    assert.include(String(message.text), '001234')
    assert.include(String(message.text), 'https://svc/v?a=1&b=2')
    assert.include(String(message.html), '001234')
    assert.include(String(message.html), 'https://svc/v?a=1&amp;b=2')
  })
})
