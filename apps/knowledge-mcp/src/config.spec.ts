import { loadConfig } from '@platform/platform';
import { KnowledgeMcpConfig } from './config';
import { hostnameOf } from './mcp/mcp-access.guard';

const DEFAULTS = { PORT: 3009, REDIS_KEY_PREFIX: 'knowledge-mcp:' };

describe('KnowledgeMcpConfig', () => {
  it('has working development defaults', () => {
    expect(loadConfig(KnowledgeMcpConfig, {}, DEFAULTS)).toMatchObject({
      KNOWLEDGE_API_URL: 'http://127.0.0.1:3003',
      MCP_SESSION_MODE: 'stateful',
      MCP_TRANSPORT: 'all',
      MCP_ALLOWED_HOSTS: 'localhost,127.0.0.1,[::1],knowledge-mcp',
    });
  });

  it('requires the clients\' bearer key in production', () => {
    expect(() => loadConfig(KnowledgeMcpConfig, { NODE_ENV: 'production' }, DEFAULTS)).toThrow(/KNOWLEDGE_MCP_API_KEY/);
    expect(loadConfig(KnowledgeMcpConfig, { NODE_ENV: 'production', KNOWLEDGE_MCP_API_KEY: 'a-long-enough-key-123' }, DEFAULTS).KNOWLEDGE_MCP_API_KEY).toBe('a-long-enough-key-123');
  });

  it('names every bad variable', () => {
    let message = '';
    try {
      loadConfig(KnowledgeMcpConfig, { KNOWLEDGE_API_URL: 'ftp://x', KNOWLEDGE_MCP_API_KEY: 'short', MCP_SESSION_MODE: 'sticky', MCP_TRANSPORT: 'ws', MCP_ALLOWED_HOSTS: 'a,,b' }, DEFAULTS);
    } catch (err) {
      message = (err as Error).message;
    }
    for (const name of ['KNOWLEDGE_API_URL', 'KNOWLEDGE_MCP_API_KEY', 'MCP_SESSION_MODE', 'MCP_TRANSPORT', 'MCP_ALLOWED_HOSTS']) expect(message).toContain(name);
  });

  it('reads the host name of a Host header without its port', () => {
    expect(hostnameOf('Example.com:3009')).toBe('example.com');
    expect(hostnameOf('[::1]:3009')).toBe('[::1]');
    expect(hostnameOf('knowledge-mcp')).toBe('knowledge-mcp');
  });
});
