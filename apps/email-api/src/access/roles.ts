export const PROJECT_ROLES = ['OWNER', 'ADMIN', 'MEMBER'] as const;
export type ProjectRole = (typeof PROJECT_ROLES)[number];

/** Roles that may manage a project (rename, keys, members, security). */
export const MANAGERS: ProjectRole[] = ['OWNER', 'ADMIN'];
