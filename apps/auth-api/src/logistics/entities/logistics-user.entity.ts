import { Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { RealmUser } from '../../common/realm-user.entity';

export const LOGISTICS_ROLES = ['admin', 'terminal_operator', 'driver', 'company_manager'] as const;
export type LogisticsRole = (typeof LOGISTICS_ROLES)[number];

/** A user of the logistics coordination backend (part G). */
@Entity({ name: 'logistics_users' })
export class LogisticsUser extends RealmUser<LogisticsRole> {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
