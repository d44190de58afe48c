/*
| The plain shape shared by the service's mails: a text part and an HTML part
| carrying the same sentences and links. No template engine: the mails are short
| and every interpolated value is escaped here.
*/
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}

export type MailBlock = { paragraph: string } | { link: string; label: string } | { code: string }

export function renderText(blocks: MailBlock[]): string {
  return `${blocks
    .map((block) => {
      if ('paragraph' in block) return block.paragraph
      if ('code' in block) return `    ${block.code}`
      return `${block.label}:\n${block.link}`
    })
    .join('\n\n')}\n`
}

export function renderHtml(title: string, blocks: MailBlock[]): string {
  const body = blocks
    .map((block) => {
      if ('paragraph' in block) return `<p>${escapeHtml(block.paragraph)}</p>`
      if ('code' in block) {
        return `<p style="font-size:24px;font-weight:bold;letter-spacing:4px">${escapeHtml(block.code)}</p>`
      }
      return `<p><a href="${escapeHtml(block.link)}">${escapeHtml(block.label)}</a></p>`
    })
    .join('\n')
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body style="font-family:sans-serif">
${body}
</body></html>
`
}
