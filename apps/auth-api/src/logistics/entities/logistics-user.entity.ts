import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const LOGISTICS_ROLES = ['admin', 'terminal_operator', 'driver', 'company_manager'] as const;
export type LogisticsRole = (typeof LOGISTICS_ROLES)[number];

/** A user of the logistics coordination backend (part G). Emails are stored lower-cased. */
@Entity({ name: 'logistics_users' })
export class LogisticsUser {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'text', unique: true })
  email: string;

  @Column({ name: 'full_name', type: 'text', nullable: true })
  fullName: string | null;

  @Column({ type: 'text' })
  role: LogisticsRole;

  @Column({ name: 'is_active', type: 'boolean' })
  isActive: boolean;

  @Column({ name: 'password_hash', type: 'text' })
  passwordHash: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
