import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Agents see the conversations of the channels they are members of: their channels are looked up by user. */
export class IndexChannelMembersByUser1795600000000 implements MigrationInterface {
  name = 'IndexChannelMembersByUser1795600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX channel_members_user_idx ON ${schemaOf(q)}.channel_members (user_id, channel_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS ${schemaOf(q)}.channel_members_user_idx`);
  }
}
