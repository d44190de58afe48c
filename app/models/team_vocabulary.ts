/*
| The values of the team resources (portal-api.md › Team member, Invitation, Login
| user, Invitation status), each defined once: the models, the validators, the
| response schemas and the invitation mail import them from here.
*/

/** Portal roles as stored (1, 10). Any other stored value is an internal role. */
export const ROLES = { administrator: 1, developer: 10 } as const
export type RoleName = keyof typeof ROLES
/** The role names (administrator, developer) and their stored values, in that order. */
export const ROLE_NAMES = Object.keys(ROLES) as RoleName[]
export const ROLE_VALUES = Object.values(ROLES)

/** portal-api.md › Invitation status; `expired` is derived (pending past expiry), never stored. */
export const INVITATION_STATUSES = ['pending', 'accepted', 'expired', 'revoked'] as const
export type InvitationStatus = (typeof INVITATION_STATUSES)[number]

/** A person's first or last name: 1 to 50 characters (Profile, acceptance, user:create). */
export const PERSON_NAME_LENGTH = { min: 1, max: 50 } as const
