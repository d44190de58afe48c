/*
| Team invitation email (portal-api.md › Team › POST /portal/team/invitations, Events):
| the accept link carries the proof in the URL fragment, so it never reaches a server
| log. Nothing else secret goes in the message.
*/
import { BaseMail } from '@adonisjs/mail'
import type { DateTime } from 'luxon'
import type { RoleName } from '#models/team_vocabulary'

export interface InvitationMailContent {
  email: string
  merchantName: string
  role: RoleName
  acceptUrl: string
  expiresAt: DateTime
}

function escapeHtml(value: string) {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

export default class InvitationMail extends BaseMail {
  subject: string

  constructor(private readonly content: InvitationMailContent) {
    super()
    this.subject = `You are invited to join ${content.merchantName} on the Merchant Portal`
  }

  prepare() {
    const { email, merchantName, role, acceptUrl, expiresAt } = this.content
    const expires = expiresAt.toUTC().toFormat("yyyy-LL-dd HH:mm 'UTC'")
    const article = role === 'administrator' ? 'an' : 'a'
    this.message
      .to(email)
      .text(
        [
          `You have been invited to join ${merchantName} on the Merchant Portal as ${article} ${role}.`,
          '',
          'Open this link to accept the invitation:',
          acceptUrl,
          '',
          `The invitation expires on ${expires}. If you did not expect it, ignore this email.`,
        ].join('\n')
      )
      .html(
        [
          `<p>You have been invited to join <strong>${escapeHtml(merchantName)}</strong> on the Merchant Portal as ${article} ${role}.</p>`,
          `<p><a href="${escapeHtml(acceptUrl)}">Accept the invitation</a></p>`,
          `<p>Or copy this link into your browser:<br>${escapeHtml(acceptUrl)}</p>`,
          `<p>The invitation expires on ${expires}. If you did not expect it, ignore this email.</p>`,
        ].join('\n')
      )
  }
}
