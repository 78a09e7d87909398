import { Writable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { createRootLogger, loggableUrl, logFormatFor, prettyDestination, requestIdFrom } from './logging';

function capture(): { stream: Writable; lines: () => Record<string, any>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { stream, lines: () => chunks.join('').trim().split('\n').map((l) => JSON.parse(l)) };
}

describe('logging', () => {
  it('writes JSON with the service name and redacts secrets', () => {
    const { stream, lines } = capture();
    const log = createRootLogger('auth-api', 'info', stream);
    log.info(
      {
        password: 'p1',
        token: 't1',
        body: { access_token: 'a1', refresh_token: 'r1', api_key: 'k1', secret: 's1', name: 'kept' },
        req: { headers: { authorization: 'Bearer x', cookie: 'sid=1', accept: 'json' } },
        res: { headers: { 'set-cookie': 'sid=2' } },
      },
      'hello',
    );
    const [line] = lines();
    expect(line.service).toBe('auth-api');
    expect(line.level).toBe('info');
    expect(line.msg).toBe('hello');
    const text = JSON.stringify(line);
    for (const secret of ['p1', 't1', 'a1', 'r1', 'k1', 's1', 'Bearer x', 'sid=1', 'sid=2']) expect(text).not.toContain(secret);
    expect(line.body.name).toBe('kept');
    expect(line.req.headers.accept).toBe('json');
  });

  it('honours the level', () => {
    const { stream, lines } = capture();
    const log = createRootLogger('x', 'warn', stream);
    log.info('hidden');
    log.warn('shown');
    expect(lines().map((l) => l.msg)).toEqual(['shown']);
  });

  it('takes a sane X-Request-Id and replaces anything else with a uuid', () => {
    const req = (value?: string) => ({ headers: value === undefined ? {} : { 'x-request-id': value } }) as IncomingMessage;
    expect(requestIdFrom(req('abc-123'))).toBe('abc-123');
    expect(requestIdFrom(req())).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(requestIdFrom(req('bad id\nwith newline'))).not.toContain('bad');
    expect(requestIdFrom(req('x'.repeat(200)))).toHaveLength(36);
  });

  it('keeps paths and harmless query values, and redacts credential-like query parameters', () => {
    expect(loggableUrl('/api/v1/items/1')).toBe('/api/v1/items/1');
    expect(loggableUrl('/contacts?limit=20&search=ann')).toBe('/contacts?limit=20&search=ann');
    expect(loggableUrl('/auth/oauth/github/callback?code=abc123&state=xyz')).toBe('/auth/oauth/github/callback?code=[redacted]&state=[redacted]');
    expect(loggableUrl('/x?api_key=k&Access%5FToken=t&flag')).toBe('/x?api_key=[redacted]&Access%5FToken=[redacted]&flag');
    expect(loggableUrl('/webhooks?hub.mode=subscribe&hub.verify_token=v&hub.challenge=c')).toBe(
      '/webhooks?hub.mode=subscribe&hub.verify_token=[redacted]&hub.challenge=[redacted]',
    );
    expect(loggableUrl('/x?%E0%A4%A=1&token=2')).toBe('/x?%E0%A4%A=1&token=[redacted]');
  });

  it('chooses readable lines at a terminal while developing, JSON for pipes and files, always JSON in production', () => {
    expect(logFormatFor('development', { isTTY: true })).toBe('pretty');
    expect(logFormatFor('test', { isTTY: true })).toBe('pretty');
    expect(logFormatFor('development', { isTTY: false })).toBe('json');
    expect(logFormatFor('development', {})).toBe('json');
    expect(logFormatFor('production', { isTTY: true })).toBe('json');
  });

  it('writes one readable line per entry in the pretty format, secrets still redacted', () => {
    const written: string[] = [];
    const log = createRootLogger('auth-api', 'info', prettyDestination({ write: (text) => written.push(text) }, false));
    log.info({ context: 'DatabaseModule' }, 'applied 2 migration(s)');
    log.info({ requestId: 'r-1', req: { method: 'GET', url: '/api/v1/auth/me' }, res: { statusCode: 200 }, responseTime: 3 }, 'request completed');
    log.warn({ token: 'should-not-show' }, 'careful');
    expect(written).toHaveLength(3);
    for (const line of written) expect(line.trimEnd().split('\n')).toHaveLength(1);
    expect(written[0]).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: auth-api \[DatabaseModule\] applied 2 migration\(s\)\n$/);
    expect(written[1]).toMatch(/INFO: auth-api GET \/api\/v1\/auth\/me 200 3ms \{"requestId":"r-1"\}\n$/);
    expect(written[2]).toMatch(/WARN: auth-api careful/);
    expect(written.join('')).not.toContain('should-not-show');
    expect(written.join('')).not.toContain('{"level"');
  });
});

