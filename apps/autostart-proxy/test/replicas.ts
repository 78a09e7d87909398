// Two replicas of the proxy on one database (the second shares the first's throwaway schema), listening on loopback.
import { createTestApp, type TestApp } from '@platform/testing';
import type { AutostartProxyConfig } from '../src/config';
import { autostartProxyService } from '../src/service';

export interface TwoReplicas {
  a: TestApp<AutostartProxyConfig>;
  b: TestApp<AutostartProxyConfig>;
  urlA: string;
  urlB: string;
}

export async function startTwoReplicas(env: Record<string, string>): Promise<TwoReplicas> {
  const a = await createTestApp(autostartProxyService, env);
  const b = await createTestApp(autostartProxyService, { ...env, DATABASE_URL: a.config.DATABASE_URL!, DATABASE_SCHEMA: a.config.DATABASE_SCHEMA! });
  await a.app.listen(0, '127.0.0.1');
  await b.app.listen(0, '127.0.0.1');
  return { a, b, urlA: await a.app.getUrl(), urlB: await b.app.getUrl() };
}
