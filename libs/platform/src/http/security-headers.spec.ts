import { createHash } from 'node:crypto';
import http from 'node:http';
import { cspDirectives, inlineContentOf, pageCsp, pageSecurityHeaders } from './security-headers';
import { applyServerTimeouts, serverTimeoutsOf } from './server-timeouts';

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

describe('pageCsp', () => {
  const page =
    '<!doctype html><html><head><style>body{color:red}</style><script src="app.js"></script></head>' +
    '<body><p style="width:10%">x</p><button onclick="location.reload()">a</button><button onclick="alert(&quot;hi&quot;)">b</button>' +
    "<script>var c={a:1};</script><SCRIPT type=\"text/javascript\">go()</SCRIPT></body></html>";

  it('finds the inline scripts (not src= ones), styles, handlers and style attributes, entities decoded', () => {
    expect(inlineContentOf(page)).toEqual({
      scripts: ['var c={a:1};', 'go()'],
      styles: ['body{color:red}'],
      handlers: ['location.reload()', 'alert("hi")'],
      styleAttributes: ['width:10%'],
    });
  });

  it('allows exactly those by hash, nothing else inline, and loads nothing by default', () => {
    const csp = pageCsp(page);
    expect(csp).toContain(`script-src ${hash('var c={a:1};')} ${hash('go()')}`);
    expect(csp).toContain(`script-src-attr 'unsafe-hashes' ${hash('location.reload()')} ${hash('alert("hi")')}`);
    expect(csp).toContain(`style-src ${hash('body{color:red}')}`);
    expect(csp).toContain(`style-src-attr 'unsafe-hashes' ${hash('width:10%')}`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(csp).not.toContain('unsafe-inline');
  });

  it('a page without inline code allows none, and overrides replace or remove directives', () => {
    const csp = pageCsp('<p>plain</p>', { 'connect-src': null, 'img-src': ["'self'", 'https://img.example'] });
    expect(csp).toContain("script-src 'none'");
    expect(csp).toContain("style-src 'none'");
    expect(csp).not.toContain('connect-src');
    expect(csp).toContain("img-src 'self' https://img.example");
  });

  it("pageSecurityHeaders adds helmet's other headers, HSTS only in production", () => {
    const headers = pageSecurityHeaders('<p>x</p>');
    expect(headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'x-frame-options': 'SAMEORIGIN', 'referrer-policy': 'no-referrer' });
    expect(headers['strict-transport-security']).toBeUndefined();
    expect(pageSecurityHeaders('<p>x</p>', { production: true })['strict-transport-security']).toMatch(/max-age=31536000/);
  });

  it('the platform directives merge overrides', () => {
    expect(cspDirectives({ 'style-src': ["'self'"], 'object-src': null })).toMatchObject({ 'style-src': ["'self'"], 'script-src': ["'self'"] });
    expect(cspDirectives({ 'object-src': null })['object-src']).toBeUndefined();
  });
});

describe('applyServerTimeouts', () => {
  it('sets the config values on the server, the defaults where unset, and keeps requestTimeout ≥ headersTimeout', () => {
    const server = applyServerTimeouts(http.createServer(), serverTimeoutsOf({ HTTP_HEADERS_TIMEOUT_MS: 3_000, HTTP_REQUEST_TIMEOUT_MS: 1_000 }));
    expect([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout]).toEqual([3_000, 3_000, 5_000]);
    const unlimited = applyServerTimeouts(http.createServer(), serverTimeoutsOf({ HTTP_REQUEST_TIMEOUT_MS: 0 }));
    expect([unlimited.headersTimeout, unlimited.requestTimeout]).toEqual([20_000, 0]);
  });
});
