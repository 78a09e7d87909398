// Two replicas' log tailers (McpLogsService) sharing Redis (TEST_REDIS_URL; one shared in-memory store
// without it) against the fake Docker Engine API: one follows the container's log at a time, every
// line is stored once, a clear by either holds for both, and the other takes over when the first stops.
import { BaseConfig } from '@platform/platform';
import { createRedisClient } from '@platform/rate-limit';
import { startFakeDockerEngine, testServices, type FakeDockerEngine } from '@platform/testing';
import type Redis from 'ioredis';
import type { KnowledgeApiConfig } from '../config';
import type { RealtimeEvents } from '../realtime/realtime-events';
import type { McpConfigService } from './mcp-config.service';
import { McpControlService } from './mcp-control.service';
import { McpLogsService } from './mcp-logs.service';
import { McpStore } from './mcp-store';

async function eventually(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('MCP log tailers of two replicas', () => {
  const redisUrl = testServices().redisUrl;
  const clients: Redis[] = [];
  let engine: FakeDockerEngine;
  let config: KnowledgeApiConfig;
  const emitted: string[][] = [[], []];
  let replicas: McpLogsService[];

  beforeAll(async () => {
    engine = await startFakeDockerEngine({ containers: [{ name: 'knowledge-mcp', state: 'running', logs: [{ stream: 'stdout', text: 'booted' }] }] });
    config = Object.assign(new BaseConfig(), {
      REDIS_KEY_PREFIX: `mcp-logs-test-${process.pid}-${Date.now()}:`,
      MCP_CONTAINER_PROVIDER: 'docker',
      MCP_CONTAINER: 'knowledge-mcp',
      DOCKER_HOST: engine.dockerHost,
      MCP_ENGINE_TIMEOUT_MS: 2000,
      MCP_LOG_POLL_MS: 50,
      MCP_LOG_BUFFER: 100,
    }) as unknown as KnowledgeApiConfig;
    const memory = new McpStore(null, config);
    const store = () => {
      if (!redisUrl) return memory;
      const client = createRedisClient(redisUrl);
      clients.push(client);
      return new McpStore(client, config);
    };
    replicas = [0, 1].map((i) => {
      const control = new McpControlService(config, undefined as unknown as McpConfigService);
      const realtime = { log: (_level: string, message: string) => emitted[i].push(message) } as unknown as RealtimeEvents;
      return new McpLogsService(config, store(), control, realtime);
    });
    for (const r of replicas) r.onApplicationBootstrap();
  });

  afterAll(async () => {
    for (const r of replicas ?? []) await r.onApplicationShutdown();
    await engine?.close();
    if (clients[0]) {
      const keys = await clients[0].keys(`${config.REDIS_KEY_PREFIX}*`);
      if (keys.length) await clients[0].del(...keys);
    }
    for (const c of clients) c.disconnect();
  });

  it('follows the log from one replica only, and stores each line once', async () => {
    await eventually(async () => (await replicas[0].recent(10)).length === 1, 'the first line stored');
    expect(engine.logFollowers('knowledge-mcp')).toBe(1);
    expect(replicas.filter((r) => r.tailing)).toHaveLength(1);
    engine.appendLog('knowledge-mcp', 'second');
    await eventually(async () => (await replicas[1].recent(10)).length === 2, 'the second line, read by the other replica');
    expect((await replicas[0].recent(10)).map((e) => e.message)).toEqual(['booted', 'second']);
    // Broadcast after the line and the tailer's place are stored: a moment later than `recent` shows it.
    await eventually(() => emitted[0].length + emitted[1].length >= 2, 'the second line broadcast');
    expect([...emitted[0], ...emitted[1]]).toEqual(['booted', 'second']);
  });

  it('keeps a clear made by either replica for both', async () => {
    const other = replicas.find((r) => !r.tailing)!;
    await other.clear();
    expect(await replicas[0].recent(10)).toEqual([]);
    engine.appendLog('knowledge-mcp', 'third');
    await eventually(async () => (await replicas[1].recent(10)).length === 1, 'the line after the clear');
    expect((await replicas[0].recent(10)).map((e) => e.message)).toEqual(['third']);
  });

  it('hands the log over when the tailing replica stops, without reading a line twice', async () => {
    const tailing = replicas.find((r) => r.tailing)!;
    const other = replicas.find((r) => r !== tailing)!;
    await tailing.onApplicationShutdown();
    await eventually(() => other.tailing, 'the other replica following');
    engine.appendLog('knowledge-mcp', 'fourth');
    await eventually(async () => (await other.recent(10)).length === 2, 'the line after the hand-over');
    expect((await other.recent(10)).map((e) => e.message)).toEqual(['third', 'fourth']);
    expect(engine.logFollowers('knowledge-mcp')).toBe(1);
  });
});

describe('MCP log tailer stopped during a round', () => {
  it('waits for the round and leaves no follower behind, so that the next tailer is the only reader', async () => {
    const engine = await startFakeDockerEngine({ containers: [{ name: 'knowledge-mcp', state: 'running', logs: [{ stream: 'stdout', text: 'booted' }] }] });
    const config = Object.assign(new BaseConfig(), {
      MCP_CONTAINER_PROVIDER: 'docker',
      MCP_CONTAINER: 'knowledge-mcp',
      DOCKER_HOST: engine.dockerHost,
      MCP_ENGINE_TIMEOUT_MS: 2000,
      MCP_LOG_POLL_MS: 60_000,
      MCP_LOG_BUFFER: 100,
    }) as unknown as KnowledgeApiConfig;
    const store = new McpStore(null, config);
    // The round's lock is granted only after the stop began (a slow Redis answer).
    let grant!: () => void;
    const granted = new Promise<void>((resolve) => (grant = resolve));
    const hold = store.hold.bind(store);
    jest.spyOn(store, 'hold').mockImplementation(async (...args) => {
      await granted;
      return hold(...args);
    });
    const control = new McpControlService(config, undefined as unknown as McpConfigService);
    const follows = jest.spyOn(control, 'engine');
    const replica = new McpLogsService(config, store, control, { log: () => undefined } as unknown as RealtimeEvents);
    try {
      replica.onApplicationBootstrap();
      const stopping = replica.onApplicationShutdown();
      grant();
      await stopping;
      // whatever the round still had to do is done by now
      await new Promise((resolve) => setImmediate(resolve));
      expect(follows).not.toHaveBeenCalled();
      expect(replica.tailing).toBe(false);
      expect(engine.logFollowers('knowledge-mcp')).toBe(0);
    } finally {
      await replica.onApplicationShutdown();
      await engine.close();
    }
  });
});
