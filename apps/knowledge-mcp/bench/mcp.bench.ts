/**
 * knowledge-mcp benchmark suite for `npm run bench` (tools/bench.ts): what the MCP layer adds to a
 * knowledge search.
 *
 * knowledge-api (built, `dist/apps/knowledge-api/main.js`, in a child process; DATABASE_URL with a
 * throwaway schema, or its embedded PostgreSQL) gets BENCH_MCP_DOCUMENTS (default 60) uploaded
 * documents; knowledge-mcp runs in this process in front of it. Then BENCH_MCP_QUERIES (default 400)
 * searches of one vocabulary word, rotating: `POST /api/rag/query` straight to knowledge-api
 * (baseline: fetch, kept-alive), and the `perform_rag_query` tool called with the official SDK client
 * over Streamable HTTP (one stateful session, bearer key) — the same query, so the difference of the
 * two medians is the MCP layer: JSON-RPC framing, the SDK's schema validation of input and output, the
 * server's own REST call (undici) and the structured answer. A third probe posts the same `tools/call`
 * with fetch on that session (no SDK client), which splits the overhead (in the detail) into the
 * server's side and the SDK client's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { dropBenchSchema, type BenchMeasurement } from '@platform/bench';
import { startService } from '@platform/platform';
import { knowledgeMcpService } from '../src/service';

const API_KEY = 'bench-knowledge-api-key-0123456789';
const MCP_KEY = 'bench-knowledge-mcp-key-0123456789';
const WORDS = ['heliograph', 'semaphore', 'telegraph', 'beacon', 'lantern', 'signal', 'mirror', 'relay', 'station', 'cipher'];

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The workspace root: the nearest directory above this file holding tools/build.mjs. */
function root(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) if (existsSync(path.join(dir, 'tools/build.mjs'))) return dir;
  throw new Error(`knowledge-mcp bench: no workspace root above ${__dirname}`);
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

async function startKnowledgeApi(): Promise<{ url: string; close(): Promise<void> }> {
  const dir = root();
  const entry = path.join(dir, 'dist/apps/knowledge-api/main.js');
  if (!existsSync(entry)) throw new Error(`knowledge-mcp bench: ${entry} is missing (node tools/build.mjs first)`);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'knowledge-mcp-bench-'));
  const port = await freePort();
  const databaseUrl = process.env.DATABASE_URL;
  const schema = `bench_${randomUUID().slice(0, 8)}`;
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['AMQP_URL', 'REDIS_URL', 'EMBEDDINGS_URL', 'RERANK_URL', 'LLM_URL', 'DATABASE_SCHEMA']) delete env[name];
  Object.assign(env, {
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    PORT: String(port),
    DATA_DIR: dataDir,
    DB_MIGRATE_ON_START: 'true',
    KNOWLEDGE_API_KEY: API_KEY,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : {}),
  });
  const child: ChildProcess = spawn(process.execPath, [entry], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    if (databaseUrl) await dropBenchSchema(databaseUrl, schema);
    await rm(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`knowledge-api exited (${child.exitCode}): ${output}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await close();
      throw new Error(`knowledge-api did not get ready within 120 s: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, close };
}

async function upload(url: string, documents: number): Promise<void> {
  for (let i = 0; i < documents; i++) {
    const text = `# Signals ${i}\n\n${Array.from({ length: 400 }, (_, k) => WORDS[(i * 3 + k * 7) % WORDS.length] + ` word${(i * 31 + k) % 500}`).join(' ')}.\n`;
    const form = new FormData();
    form.append('file', new Blob([text], { type: 'text/markdown' }), `signals-${i}.md`);
    form.append('knowledge_type', 'technical');
    const res = await fetch(`${url}/api/documents/upload`, { method: 'POST', headers: { 'x-api-key': API_KEY }, body: form });
    if (res.status !== 200 && res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  }
}

export async function runKnowledgeMcpBench(): Promise<BenchMeasurement[]> {
  const documents = Number(process.env.BENCH_MCP_DOCUMENTS ?? 60);
  const queries = Number(process.env.BENCH_MCP_QUERIES ?? 400);
  const api = await startKnowledgeApi();
  let mcp: Awaited<ReturnType<typeof startService>> | undefined;
  let client: Client | undefined;
  try {
    await upload(api.url, documents);
    const dataDir = await mkdtemp(path.join(tmpdir(), 'knowledge-mcp-bench-own-'));
    mcp = await startService(knowledgeMcpService, {
      port: 0,
      host: '127.0.0.1',
      logger: false,
      env: { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, KNOWLEDGE_API_URL: api.url, KNOWLEDGE_API_KEY: API_KEY, KNOWLEDGE_MCP_API_KEY: MCP_KEY },
    });
    client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url.replace('localhost', '127.0.0.1')}/mcp`), { requestInit: { headers: { authorization: `Bearer ${MCP_KEY}` } } }));

    const rest = async (query: string) => {
      const res = await fetch(`${api.url}/api/rag/query`, {
        method: 'POST',
        headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ query, match_count: 5 }),
      });
      const body = (await res.json()) as { total_results: number };
      if (!res.ok) throw new Error(`REST query answered ${res.status}`);
      return body.total_results;
    };
    const tool = async (query: string) => {
      const res = (await client!.callTool({ name: 'perform_rag_query', arguments: { query, match_count: 5 } })) as { isError?: boolean; structuredContent?: { total_results: number } };
      if (res.isError) throw new Error(`perform_rag_query failed: ${JSON.stringify(res)}`);
      return res.structuredContent!.total_results;
    };
    // The same tools/call as the SDK client sends it, posted with fetch on the client's session: the
    // server's share of the overhead (HTTP hop, pipeline, protocol server, its call to knowledge-api)
    // without the client's (the SDK client's framing and validation).
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const protocolVersion = (client.transport as StreamableHTTPClientTransport).protocolVersion ?? '2025-06-18';
    let rpcId = 1_000_000;
    const raw = async (query: string) => {
      const res = await fetch(`${mcp!.url.replace('localhost', '127.0.0.1')}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${MCP_KEY}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': protocolVersion,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: rpcId++, method: 'tools/call', params: { name: 'perform_rag_query', arguments: { query, match_count: 5 } } }),
      });
      const body = (await res.json()) as { result?: { isError?: boolean; structuredContent?: { total_results: number } } };
      if (!res.ok || !body.result || body.result.isError) throw new Error(`raw tools/call answered ${res.status}: ${JSON.stringify(body)}`);
      return body.result.structuredContent!.total_results;
    };
    for (let i = 0; i < 50; i++) {
      await rest(WORDS[i % WORDS.length]);
      await tool(WORDS[i % WORDS.length]);
      await raw(WORDS[i % WORDS.length]);
    }
    const runs = [rest, tool, raw];
    const times = new Map<typeof rest, number[]>(runs.map((run) => [run, []]));
    let found = 0;
    for (let i = 0; i < queries; i++) {
      const query = WORDS[i % WORDS.length];
      // rotate which goes first, so none always meets a warmer cache
      for (let k = 0; k < runs.length; k++) {
        const run = runs[(i + k) % runs.length];
        const started = performance.now();
        found += await run(query);
        times.get(run)!.push(performance.now() - started);
      }
    }
    if (found === 0) throw new Error('knowledge-mcp bench: the searches found nothing');
    const restP50 = median(times.get(rest)!);
    const toolP50 = median(times.get(tool)!);
    const rawP50 = median(times.get(raw)!);
    const overhead = toolP50 - restP50;
    const detail =
      `${queries} searches each over ${documents} uploaded documents, rotating; baseline: POST /api/rag/query straight to knowledge-api (fetch), p50 ${round(restP50, 2)} ms; ` +
      `the same tools/call posted with fetch (no SDK client) p50 ${round(rawP50, 2)} ms: server side ${round(rawP50 - restP50, 2)} ms, SDK client ${round(toolP50 - rawP50, 2)} ms`;
    return [
      {
        name: 'knowledge-mcp: perform_rag_query overhead p50',
        value: round(overhead),
        unit: 'ms',
        baseline: round(restP50),
        ratio: round(toolP50 / restP50, 2),
        detail: `median of the MCP tool call (SDK client, Streamable HTTP session) minus the median of the REST query (goal < 2 ms); ${detail}`,
      },
      {
        name: 'knowledge-mcp: perform_rag_query p50',
        value: round(toolP50),
        unit: 'ms',
        baseline: round(restP50),
        ratio: round(toolP50 / restP50, 2),
        detail: `the MCP tool call's median latency; ${detail}`,
      },
    ];
  } finally {
    await client?.close().catch(() => undefined);
    await mcp?.close();
    await api.close();
  }
}

if (require.main === module) {
  runKnowledgeMcpBench().then(
    (m) => console.log(JSON.stringify(m, null, 2)),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
