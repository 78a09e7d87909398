import type { User } from '../access/user';

export function userView(u: User) {
  return { id: u.id, email: u.email, name: u.name, emailVerified: u.emailVerifiedAt !== null, createdAt: u.createdAt };
}
