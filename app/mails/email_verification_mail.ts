/*
| Email change verification (portal-api.md › Email change state table): sent to
| the NEW address with the six-digit code and the signed link, both valid 15
| minutes. The current address is not mentioned.
*/
import { BaseMail } from '@adonisjs/mail'
import { renderHtml, renderText, type MailBlock } from '#mails/mail_layout'

export default class EmailVerificationMail extends BaseMail {
  subject = 'Confirm your new Merchant Portal email address'

  constructor(
    readonly recipient: string,
    readonly otp: string,
    readonly verificationLink: string,
    readonly validMinutes: number
  ) {
    super()
  }

  prepare() {
    const blocks: MailBlock[] = [
      {
        paragraph:
          'Someone asked to use this address for a Merchant Portal account. Enter this code in the Portal to confirm it:',
      },
      { code: this.otp },
      { paragraph: 'Or open this link:' },
      { link: this.verificationLink, label: 'Confirm this email address' },
      {
        paragraph: `The code and the link expire in ${this.validMinutes} minutes. If you did not ask for this change, ignore this email: nothing changes.`,
      },
    ]
    this.message
      .to(this.recipient)
      .subject(this.subject)
      .text(renderText(blocks))
      .html(renderHtml(this.subject, blocks))
  }
}
