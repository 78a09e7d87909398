/** A dashboard account. */
export interface User {
  id: string;
  email: string;
  name: string | null;
  /** Null for accounts created by an OAuth login that never set a password. */
  passwordHash: string | null;
  emailVerifiedAt: Date | null;
  sessionVersion: number;
  createdAt: Date;
}

export type TokenPurpose = 'verify_email' | 'reset_password';
