import { DataSource } from 'typeorm';
import { createTestApp, startFakeGraphApi, type FakeGraphApi, type TestApp } from '@platform/testing';
import { AccountsService } from '../src/accounts/accounts.service';
import type { AutomationConfig } from '../src/config';
import { automationApiService } from '../src/service';

export const KEY_A = 'test-key-account-a-0123456789';

export interface AutomationTestContext {
  t: TestApp<AutomationConfig>;
  /** Environment the app was started with (restart() reuses it). */
  env: Record<string, string>;
  fakeA: FakeGraphApi;
  fakeB: FakeGraphApi;
  keyA: string;
  keyB: string;
  ds: DataSource;
  schema: string;
  /** Inserts a run row as the engine (part 2) would. */
  insertRun(accountKey: 'a' | 'b', automationId: number, fields?: Record<string, unknown>): Promise<number>;
  accountId(which: 'a' | 'b'): number;
  /**
   * Closes the Nest app (as a crash-free stop would: shutdown hooks run, the database stays) and
   * starts a new one on the same database; `t` and `ds` then point at the new app.
   */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * automation-api on a throwaway database with two accounts: A from AUTOMATION_API_KEY and the IG_*
 * variables (fake Graph API A), B created like the create-account command does (fake Graph API B).
 */
export async function startAutomationApp(env: Record<string, string> = {}): Promise<AutomationTestContext> {
  const fakeA = await startFakeGraphApi({ accessToken: 'token-a', userId: '1780000000000001', username: 'brand_a' });
  const fakeB = await startFakeGraphApi({ accessToken: 'token-b', userId: '1780000000000002', username: 'brand_b' });
  const fullEnv: Record<string, string> = {
    AUTOMATION_API_KEY: KEY_A,
    IG_GRAPH_URL: fakeA.url,
    IG_USER_ID: fakeA.state.account.user_id,
    IG_ACCESS_TOKEN: 'token-a',
    IG_APP_SECRET: 'app-secret',
    IG_VERIFY_TOKEN: 'verify',
    PUBLIC_BASE_URL: 'https://automation.example.com',
    GRAPH_TIMEOUT_MS: '1000',
    // No pacing of private replies unless a test asks for it (SendPacing has its own test).
    PRIVATE_REPLY_SPACING_MS: '0',
    PRIVATE_REPLY_JITTER_MS: '0',
    ...env,
  };
  const t = await createTestApp(automationApiService, fullEnv);
  const accounts = t.app.get(AccountsService);
  const b = await accounts.create({ name: 'b', graph_url: fakeB.url, ig_user_id: fakeB.state.account.user_id, access_token: 'token-b' });
  const ds = t.app.get(DataSource);
  const schema = (ds.options as { schema: string }).schema;
  const [{ id: aId }] = await ds.query(`SELECT account_id AS id FROM ${schema}.api_keys WHERE label = 'AUTOMATION_API_KEY'`);
  const ids = { a: aId as number, b: b.account.id };
  const ctx: AutomationTestContext = {
    t,
    env: fullEnv,
    fakeA,
    fakeB,
    keyA: KEY_A,
    keyB: b.apiKey,
    ds,
    schema,
    accountId: (which) => ids[which],
    async insertRun(which, automationId, fields = {}) {
      const row = { account_id: ids[which], automation_id: automationId, contact_ig_id: 'ig-1', trigger: 'comment', ...fields };
      const cols = Object.keys(row);
      const [{ id }] = await ds.query(
        `INSERT INTO ${schema}.runs (${cols.join(', ')}) VALUES (${cols.map((_c, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
        Object.values(row),
      );
      return Number(id);
    },
    async restart() {
      const database = t.database!;
      await ctx.t.app.close();
      const next = await createTestApp(automationApiService, { ...fullEnv, DATABASE_URL: database.url, DATABASE_SCHEMA: database.schema ?? '' });
      ctx.t = { ...next, database, close: async () => {
        await next.app.close();
        await database.drop();
      } };
      ctx.ds = next.app.get(DataSource);
    },
    async close() {
      await ctx.t.close();
      await fakeA.close();
      await fakeB.close();
    },
  };
  return ctx;
}
