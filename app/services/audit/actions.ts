/*
| Audit actions named both by an endpoint's declaration (the action its throttled
| requests are audited as, app/controllers/*_endpoints.ts) and by the operation that
| audits the request itself: one constant for both (portal-api.md › Events).
*/
export const AuditActions = {
  passwordResetLink: 'user.password.reset_link',
  passwordReset: 'user.password.reset',
  passwordChange: 'user.password.change',
  profileUpdate: 'user.profile.update',
  emailVerify: 'user.email.verify',
  emailResend: 'user.email.resend',
  emailVerifyLink: 'user.email.verify_link',
  integrationKeyPut: 'integration_key.put',
  integrationKeyDelete: 'integration_key.delete',
  machineClientIssue: 'machine_client.issue',
  machineClientRotate: 'machine_client.rotate',
  machineClientRevoke: 'machine_client.revoke',
  credentialDeliveryConsume: 'credential_delivery.consume',
  teamMemberRoleChange: 'team.member.role_change',
  teamMemberRemove: 'team.member.remove',
  invitationCreate: 'team.invitation.create',
  invitationResend: 'team.invitation.resend',
  invitationRevoke: 'team.invitation.revoke',
  invitationAccept: 'team.invitation.accept',
} as const

export type AuditAction = (typeof AuditActions)[keyof typeof AuditActions]
