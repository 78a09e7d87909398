import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { AttributeDefinition, AttributeType } from './attributes';

export interface StoredAttributeDefinition extends AttributeDefinition {
  id: string;
  displayName: string;
  createdAt: Date;
}

interface Row {
  id: string;
  key: string;
  display_name: string;
  type: AttributeType;
  values: string[];
  created_at: Date;
}

const toDef = (r: Row): StoredAttributeDefinition => ({ id: r.id, key: r.key, displayName: r.display_name, type: r.type, values: r.values, createdAt: r.created_at });

@Injectable()
export class AttributeDefinitionsRepository {
  constructor(private readonly db: Database) {}

  async list(accountId: string): Promise<StoredAttributeDefinition[]> {
    return (await this.db.rows<Row>(`SELECT * FROM ${this.db.table('attribute_definitions')} WHERE account_id = $1 ORDER BY key`, [accountId])).map(toDef);
  }

  /** null when the key is taken. */
  async insert(accountId: string, d: { key: string; displayName: string; type: AttributeType; values: string[] }): Promise<StoredAttributeDefinition | null> {
    const row = await this.db.one<Row>(
      `INSERT INTO ${this.db.table('attribute_definitions')} (account_id, key, display_name, type, values) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (account_id, key) DO NOTHING RETURNING *`,
      [accountId, d.key, d.displayName, d.type, d.values],
    );
    return row ? toDef(row) : null;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.db.affected(`DELETE FROM ${this.db.table('attribute_definitions')} WHERE account_id = $1 AND id = $2`, [accountId, id])) === 1;
  }
}
