import { ApiError } from '@platform/errors';

/**
 * The permission catalogue. A role is a set of these; `admin` grants every permission.
 * Reads need the matching `:read` permission; every write needs authentication and its permission.
 */
export const PERMISSIONS = {
  'conversations:read': 'List and fetch conversations and their messages',
  'conversations:write': 'Send messages and private notes, change status (resolve, reopen, snooze), labels and priority',
  'conversations:assign': 'Assign conversations to agents and teams',
  'contacts:read': 'List, search and fetch contacts',
  'contacts:write': 'Update contacts and their custom attributes',
  'attributes:manage': 'Define custom contact attributes',
  'channels:manage': 'Configure messaging channels (numbers, credentials, assignment)',
  'recipes:read': 'Read automation recipes',
  'recipes:write': 'Edit automation recipe drafts',
  'recipes:publish': 'Publish automation recipes',
  'analytics:read': 'Read reports',
  'users:manage': 'Create, update and deactivate users',
  'teams:manage': 'Create, update and delete teams and their members',
  'roles:manage': 'Create, update and delete custom roles',
  admin: 'Everything, including every permission above',
} as const;

export type Permission = keyof typeof PERMISSIONS;
export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[];

/** The built-in roles every account starts with (not editable, not deletable). */
export const BUILT_IN_ROLES: Record<'administrator' | 'agent', { description: string; permissions: Permission[] }> = {
  administrator: { description: 'Full access to the account', permissions: ['admin'] },
  agent: {
    description: 'Handles conversations and contacts',
    permissions: ['conversations:read', 'conversations:write', 'conversations:assign', 'contacts:read', 'contacts:write', 'recipes:read', 'analytics:read'],
  },
};

/** True when `granted` covers `required` (`admin` covers everything). */
export function hasPermission(granted: readonly string[], required: Permission): boolean {
  return granted.includes('admin') || granted.includes(required);
}

/**
 * The permissions of `wanted` that `granter` may not hand out: nobody grants what they do not hold,
 * and only administrators grant `admin` (an administrator holds everything, so grants anything).
 * Empty when the grant (a role given to a user, a role's permission set) is allowed.
 */
export function ungrantable(granter: readonly string[], wanted: readonly string[]): string[] {
  if (granter.includes('admin')) return [];
  return wanted.filter((p) => p === 'admin' || !granter.includes(p));
}

/** 403 `PERMISSION_NOT_GRANTABLE` naming what `granter` may not hand out of `wanted`. */
export function assertGrantable(granter: readonly string[], wanted: readonly string[], what: string): void {
  const refused = ungrantable(granter, wanted);
  if (!refused.length) return;
  throw new ApiError(403, 'PERMISSION_NOT_GRANTABLE', `You cannot ${what}: it holds ${refused.join(', ')}, which you do not hold`, {
    suggestion: refused.includes('admin') ? 'Only administrators grant the admin permission.' : 'Ask an administrator, or grant only permissions your own role holds.',
  });
}

/**
 * The advisory-lock key serialising every change that can remove an account's administrators
 * (role changes, deactivations, role edits), so that the "last active administrator" check holds
 * when two such changes race.
 */
export const administratorsLockKey = (accountId: string) => `administrators:${accountId}`;
