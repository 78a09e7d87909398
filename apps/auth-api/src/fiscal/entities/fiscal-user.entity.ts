import { Entity, PrimaryGeneratedColumn } from 'typeorm';
import { RealmUser } from '../../common/realm-user.entity';

/** A user of the fiscal-tracking login API (part B). */
@Entity({ name: 'users' })
export class FiscalUser extends RealmUser {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'ALWAYS' })
  id: number;
}
