import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';

// The result of an app's own benchmark suite (apps/<app>/bench/*.bench.ts): one figure next to its
// baseline measured in the same run. Defined once here; the app suites import it, and the loopback helper below.
export interface BenchMeasurement {
  /** `<app>: <what>`, shown in the table and used as key in dist/bench/results.json */
  name: string;
  value: number;
  unit: string;
  baseline: number;
  /** value / baseline */
  ratio: number;
  /** how it was measured and what the baseline is */
  detail: string;
}

/** Listens on a free loopback port; `close()` drops kept-alive connections too. For baseline servers. */
export async function listenOnLoopback(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Drops a bench's throwaway schema on a connection of its own, once the app using it has closed. */
export async function dropBenchSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

