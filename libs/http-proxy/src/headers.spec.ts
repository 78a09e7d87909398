import { stripHopByHop, upstreamRequestHeaders } from './headers';

describe('proxy headers', () => {
  it('drops hop-by-hop headers and those named by Connection', () => {
    const out = stripHopByHop({
      connection: 'keep-alive, x-secret-hop',
      'keep-alive': 'timeout=5',
      'transfer-encoding': 'chunked',
      te: 'trailers',
      upgrade: 'h2c',
      'proxy-authorization': 'Basic x',
      'x-secret-hop': '1',
      authorization: 'Bearer t',
      'content-type': 'text/plain',
      'set-cookie': ['a=1', 'b=2'],
    });
    expect(out).toEqual({ authorization: 'Bearer t', 'content-type': 'text/plain', 'set-cookie': ['a=1', 'b=2'] });
  });

  it('sets X-Forwarded-* and the request id for the upstream', () => {
    const out = upstreamRequestHeaders(
      { host: 'gw.example.com', 'content-length': '3' },
      { remoteAddress: '10.0.0.9', encrypted: false, prefix: '/auth', requestId: 'req-1' },
    );
    expect(out).toMatchObject({
      host: 'gw.example.com',
      'content-length': '3',
      'x-forwarded-for': '10.0.0.9',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': 'gw.example.com',
      'x-forwarded-prefix': '/auth',
      'x-request-id': 'req-1',
    });
  });

  it('keeps the chunked framing of a body without Content-Length, and only then', () => {
    const info = { remoteAddress: '10.0.0.9', encrypted: false, prefix: '/auth', requestId: 'r' };
    expect(upstreamRequestHeaders({ 'transfer-encoding': 'chunked' }, info)['transfer-encoding']).toBe('chunked');
    expect(upstreamRequestHeaders({ 'content-length': '4' }, info)['transfer-encoding']).toBeUndefined();
    expect(upstreamRequestHeaders({}, info)['transfer-encoding']).toBeUndefined();
  });

  it('appends to forwarding headers set by an outer proxy', () => {
    const out = upstreamRequestHeaders(
      {
        host: 'gateway:3000',
        'x-forwarded-for': '203.0.113.7',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'api.example.com',
        'x-forwarded-prefix': '/platform/',
      },
      { remoteAddress: '10.0.0.2', encrypted: false, prefix: '/email', requestId: 'r' },
    );
    expect(out['x-forwarded-for']).toBe('203.0.113.7, 10.0.0.2');
    expect(out['x-forwarded-proto']).toBe('https');
    expect(out['x-forwarded-host']).toBe('api.example.com');
    expect(out['x-forwarded-prefix']).toBe('/platform/email');
  });

  it('leaves X-Forwarded-Prefix as received when the target has no prefix', () => {
    const info = { remoteAddress: '10.0.0.2', encrypted: false, requestId: 'r' };
    expect(upstreamRequestHeaders({ host: 'a.example.com' }, info)['x-forwarded-prefix']).toBeUndefined();
    expect(upstreamRequestHeaders({ host: 'a', 'x-forwarded-prefix': '/outer' }, info)['x-forwarded-prefix']).toBe('/outer');
  });
});
