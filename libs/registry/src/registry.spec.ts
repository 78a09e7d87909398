import fs from 'node:fs';
import path from 'node:path';
import { REGISTERED_SERVICES, registeredService, SERVICES_BEHIND_GATEWAY, servicesBehindGateway, upstreamEnvName } from './registry';

const file = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../services.json'), 'utf8')) as { services: unknown[] };

describe('the registry', () => {
  it('is services.json, line for line', () => {
    expect(REGISTERED_SERVICES).toEqual(file.services);
    expect(registeredService('auth-api')).toMatchObject({ name: 'auth-api', port: 3004, prefix: '/auth', database: 'auth' });
    expect(registeredService('no-such-api')).toBeUndefined();
  });

  it('puts every service with a prefix behind the gateway, in registry order', () => {
    const withPrefix = (file.services as { name: string; prefix: string | null; port: number }[]).filter((s) => s.prefix !== null);
    expect(SERVICES_BEHIND_GATEWAY).toEqual(withPrefix.map(({ name, prefix, port }) => ({ name, prefix, port })));
    expect(SERVICES_BEHIND_GATEWAY.map((s) => s.name)).not.toContain('gateway');
    expect(SERVICES_BEHIND_GATEWAY.length).toBeGreaterThan(0);
    expect(
      servicesBehindGateway([
        { name: 'gateway', port: 3000, prefix: null, database: null, hpa: true },
        { name: 'demo-api', port: 3100, prefix: '/demo', database: 'demo', hpa: true, env: { A: 'b' } },
      ]),
    ).toEqual([{ name: 'demo-api', prefix: '/demo', port: 3100 }]);
  });

  it('names the upstream variable after the app', () => {
    expect(upstreamEnvName('auth-api')).toBe('GATEWAY_UPSTREAM_AUTH_API');
    expect(upstreamEnvName('logistics-hooks')).toBe('GATEWAY_UPSTREAM_LOGISTICS_HOOKS');
    expect(upstreamEnvName('knowledge-mcp2')).toBe('GATEWAY_UPSTREAM_KNOWLEDGE_MCP2');
  });
});
