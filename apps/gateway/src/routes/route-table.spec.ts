import { buildRouteTable } from './route-table';

describe('route table', () => {
  const table = buildRouteTable({ 'auth-api': 'http://auth.internal:8080' });

  it('routes the nine services of the registry with their prefixes and ports', () => {
    expect(buildRouteTable({}).routes.map((s) => `${s.prefix}=${s.name}:${s.port}`)).toEqual([
      '/automation=automation-api:3001',
      '/email=email-api:3002',
      '/knowledge=knowledge-api:3003',
      '/auth=auth-api:3004',
      '/conversation=conversation-api:3005',
      '/transcribe=transcribe-api:3006',
      '/autostart=autostart-proxy:3007',
      '/logistics=logistics-hooks:3008',
      '/knowledge-mcp=knowledge-mcp:3009',
    ]);
  });

  it('uses the configured upstream, else loopback on the standard port', () => {
    const byName = Object.fromEntries(table.routes.map((r) => [r.name, r.upstream.origin]));
    expect(byName['auth-api']).toBe('http://auth.internal:8080');
    expect(byName['email-api']).toBe('http://127.0.0.1:3002');
  });

  it.each([
    ['/auth/api/v1/auth/me', 'auth-api', '/api/v1/auth/me'],
    ['/auth/api/v1/auth/me?x=1&y=%20', 'auth-api', '/api/v1/auth/me?x=1&y=%20'],
    ['/auth', 'auth-api', '/'],
    ['/auth/', 'auth-api', '/'],
    ['/auth?x=1', 'auth-api', '/?x=1'],
    ['/automation/api/v1/automations', 'automation-api', '/api/v1/automations'],
    ['/transcribe/transcribe/async', 'transcribe-api', '/transcribe/async'],
    ['/logistics/socket.io/?EIO=4&transport=websocket', 'logistics-hooks', '/socket.io/?EIO=4&transport=websocket'],
    ['/knowledge//api/x', 'knowledge-api', '//api/x'],
    // a prefix that begins with another one goes to its own app, whatever the order of the registry
    ['/knowledge-mcp/mcp', 'knowledge-mcp', '/mcp'],
    ['/knowledge/mcp', 'knowledge-api', '/mcp'],
  ])('routes %s to %s as %s', (url, service, path) => {
    const match = table.match(url);
    expect(match?.route.name).toBe(service);
    expect(match?.path).toBe(path);
  });

  it.each(['/', '/authx/me', '/api/docs', '/healthz', '/Auth/me', 'auth/me', '/unknown', ''])('does not route %j', (url) => {
    expect(table.match(url)).toBeUndefined();
  });

  it('lists the prefixes', () => {
    expect(table.prefixes).toContain('/logistics');
    expect(table.prefixes).toHaveLength(9);
  });

  it.each([
    ['not a url', 'must be an absolute http(s) URL'],
    ['ftp://host:21', 'must use http or https'],
    ['http://host:1/base', 'must be an origin only'],
    ['http://user:pw@host:1', 'must be an origin only'],
  ])('refuses the upstream %j', (raw, message) => {
    expect(() => buildRouteTable({ 'email-api': raw })).toThrow(message);
    expect(() => buildRouteTable({ 'email-api': raw })).toThrow('GATEWAY_UPSTREAM_EMAIL_API');
  });
});
