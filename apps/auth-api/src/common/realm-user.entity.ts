import { Column, CreateDateColumn } from 'typeorm';

/**
 * The columns both realms' users share (part B's `users`, part G's `logistics_users`): each realm
 * keeps its own table and id type, and adds what only it has. Emails are stored lower-cased.
 */
export abstract class RealmUser<Role extends string = string> {
  @Column({ type: 'text', unique: true })
  email: string;

  @Column({ name: 'full_name', type: 'text', nullable: true })
  fullName: string | null;

  @Column({ type: 'text' })
  role: Role;

  @Column({ name: 'is_active', type: 'boolean' })
  isActive: boolean;

  @Column({ name: 'password_hash', type: 'text' })
  passwordHash: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
