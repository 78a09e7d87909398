import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

@Injectable()
export class SendingRepository {
  constructor(private readonly db: Database) {}

  async sendRate(projectId: string): Promise<number | null> {
    const row = await this.db.one<{ send_rate: number | null }>(`SELECT send_rate FROM ${this.db.table('projects')} WHERE id = $1`, [projectId]);
    return row?.send_rate ?? null;
  }

  async setSendRate(projectId: string, rate: number | null): Promise<void> {
    await this.db.affected(`UPDATE ${this.db.table('projects')} SET send_rate = $2, updated_at = now() WHERE id = $1`, [projectId, rate]);
  }
}
