// The MCP server (apps/knowledge-mcp), built and started in a child process, standing for the process
// inside the MCP container that a fake engine pretends to run: its output goes to that container's
// log (`onLine`), as the engine would collect it. Nothing of knowledge-mcp's code is imported.
import { startBuiltApp } from '@platform/testing';

export interface RunningMcpServer {
  url: string;
  stop(): Promise<void>;
}

export async function startMcpServer(env: Record<string, string>, onLine: (stream: 'stdout' | 'stderr', line: string) => void): Promise<RunningMcpServer> {
  const { PORT, ...rest } = env;
  const app = await startBuiltApp('knowledge-mcp', {
    port: PORT ? Number(PORT) : undefined,
    unset: ['AMQP_URL', 'REDIS_URL', 'DATABASE_URL'],
    env: { LOG_LEVEL: 'info', ...rest },
    onLine,
    timeoutMs: 60_000,
  });
  return { url: app.url, stop: app.close };
}
