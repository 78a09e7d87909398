import type { RealmUser } from './realm-user.entity';

/** The response fields both realms' User bodies share, in the spec's snake_case. */
export function realmUserFields<Role extends string>(user: RealmUser<Role>) {
  return {
    email: user.email,
    full_name: user.fullName,
    role: user.role,
    is_active: user.isActive,
    created_at: user.createdAt.toISOString(),
  };
}
