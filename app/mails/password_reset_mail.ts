/*
| Password reset link (portal-api.md › POST /auth/reset-password/reset-link): the
| caller's reset_url with `token` and `email` appended as query values.
*/
import { BaseMail } from '@adonisjs/mail'
import { renderHtml, renderText, type MailBlock } from '#mails/mail_layout'

export default class PasswordResetMail extends BaseMail {
  subject = 'Reset your Merchant Portal password'

  constructor(
    readonly recipient: string,
    readonly resetLink: string,
    readonly validMinutes: number
  ) {
    super()
  }

  prepare() {
    const blocks: MailBlock[] = [
      { paragraph: 'We received a request to reset the password of your Merchant Portal account.' },
      { link: this.resetLink, label: 'Choose a new password' },
      {
        paragraph: `The link works once and expires in ${this.validMinutes} minutes. If you did not ask for it, ignore this email: your password stays unchanged.`,
      },
    ]
    this.message
      .to(this.recipient)
      .subject(this.subject)
      .text(renderText(blocks))
      .html(renderHtml(this.subject, blocks))
  }
}
