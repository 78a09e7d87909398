import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/** A Content-Security-Policy as directives: name → sources (`null` removes a directive). */
export type CspDirectives = Record<string, readonly string[] | null>;

/**
 * What every page an app serves through Express may load: everything from its own origin only (no
 * CDN: the machines have no internet and the docs' assets are local), no plugins, no inline
 * script or event handler, forms posting to the app itself, framed by its own origin only. Inline
 * `<style>` is allowed (Swagger UI's page and the apps' small pages carry some; a style cannot run
 * code). helmet's defaults otherwise, without `https:` sources and without
 * `upgrade-insecure-requests` (an app reached over plain HTTP, such as `npm start` or compose on
 * localhost, would have its own assets upgraded to HTTPS and fail; TLS ends at the ingress).
 */
export const PLATFORM_CSP: CspDirectives = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'connect-src': ["'self'"],
  'font-src': ["'self'", 'data:'],
  'form-action': ["'self'"],
  'frame-ancestors': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'object-src': ["'none'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'", "'unsafe-inline'"],
};

export interface SecurityHeadersOptions {
  /** Directives that replace the platform's (`null` removes one), e.g. `{ 'connect-src': ["'self'", 'wss:'] }`. */
  contentSecurityPolicy?: CspDirectives;
  /**
   * Cross-Origin-Resource-Policy; default `same-origin`. A response meant to be embedded by other
   * sites (an image linked from an email) sets `cross-origin` on itself: `res.setHeader(...)` in
   * its handler replaces the platform's value, as does Nest's `@Header()`.
   */
  crossOriginResourcePolicy?: 'same-origin' | 'same-site' | 'cross-origin';
  /** Strict-Transport-Security (one year, subdomains); default only when NODE_ENV=production. */
  hsts?: boolean;
}

export function cspDirectives(overrides: CspDirectives = {}): Record<string, string[]> {
  const merged: Record<string, string[]> = {};
  for (const [name, sources] of Object.entries({ ...PLATFORM_CSP, ...overrides })) {
    if (sources) merged[name] = [...sources];
  }
  return merged;
}

export function formatCsp(directives: Record<string, readonly string[]>): string {
  return Object.entries(directives)
    .map(([name, sources]) => (sources.length ? `${name} ${sources.join(' ')}` : name))
    .join('; ');
}

/**
 * helmet with the platform's policy, the first middleware of every app that serves pages through
 * Express (Swagger UI, ReDoc, the apps' HTML pages) and on its JSON answers too: CSP,
 * X-Content-Type-Options: nosniff, X-Frame-Options: SAMEORIGIN, Referrer-Policy: no-referrer,
 * Cross-Origin-Opener-Policy and -Resource-Policy, Origin-Agent-Cluster, X-DNS-Prefetch-Control,
 * X-Download-Options, X-Permitted-Cross-Domain-Policies, X-XSS-Protection: 0, and HSTS in production.
 * A handler that sets one of these headers itself (a page with its own CSP) wins.
 */
export function securityHeaders(production: boolean, options: SecurityHeadersOptions = {}): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(options.contentSecurityPolicy) },
    crossOriginResourcePolicy: { policy: options.crossOriginResourcePolicy ?? 'same-origin' },
    strictTransportSecurity: (options.hsts ?? production) ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  }) as RequestHandler;
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** An attribute value as the browser hashes it: character references decoded. */
function decodeAttribute(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** The inline code of a page: `<script>` bodies (not `src=` ones), `<style>` bodies, event handler and style attributes. */
export function inlineContentOf(html: string): { scripts: string[]; styles: string[]; handlers: string[]; styleAttributes: string[] } {
  const scripts: string[] = [];
  const styles: string[] = [];
  const handlers: string[] = [];
  const styleAttributes: string[] = [];
  for (const m of html.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script\s*>/gi)) {
    if (!/\ssrc\s*=/i.test(m[1] ?? '')) scripts.push(m[2]);
  }
  for (const m of html.matchAll(/<style(\s[^>]*)?>([\s\S]*?)<\/style\s*>/gi)) styles.push(m[2]);
  for (const tag of html.matchAll(/<[a-z][^\s>/]*(\s[^>]*)>/gi)) {
    for (const a of (tag[1] ?? '').matchAll(/\s(on[a-z]+|style)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) {
      const value = decodeAttribute(a[2] ?? a[3] ?? '');
      if (a[1].toLowerCase() === 'style') styleAttributes.push(value);
      else handlers.push(value);
    }
  }
  return { scripts, styles, handlers, styleAttributes };
}

/**
 * A strict Content-Security-Policy for one rendered HTML page that carries its own inline scripts
 * and styles (a waiting page): exactly those, by their SHA-256 hashes, and nothing inline that an
 * injected value could add; fetches, images and forms to its own origin only. Inline event handlers
 * and style attributes are allowed by hash too (`'unsafe-hashes'`), so operator-written templates
 * keep working.
 */
export function pageCsp(html: string, overrides: CspDirectives = {}): string {
  const inline = inlineContentOf(html);
  const unique = (list: string[]) => [...new Set(list.map(sha256))];
  const scripts = unique(inline.scripts);
  const styles = unique(inline.styles);
  const directives: CspDirectives = {
    'default-src': ["'none'"],
    'base-uri': ["'none'"],
    'connect-src': ["'self'"],
    'font-src': ["'self'", 'data:'],
    'form-action': ["'self'"],
    'frame-ancestors': ["'self'"],
    'img-src': ["'self'", 'data:'],
    'object-src': ["'none'"],
    'script-src': scripts.length ? scripts : ["'none'"],
    'script-src-attr': inline.handlers.length ? ["'unsafe-hashes'", ...unique(inline.handlers)] : ["'none'"],
    'style-src': styles.length ? styles : ["'none'"],
    'style-src-attr': inline.styleAttributes.length ? ["'unsafe-hashes'", ...unique(inline.styleAttributes)] : ["'none'"],
    ...overrides,
  };
  const kept: Record<string, readonly string[]> = {};
  for (const [name, sources] of Object.entries(directives)) if (sources) kept[name] = sources;
  return formatCsp(kept);
}

/**
 * helmet's headers for a page answered outside Express (a raw `node:http` handler), with its CSP
 * from `pageCsp`: pass them to `res.writeHead`.
 */
export function pageSecurityHeaders(html: string, opts: { production?: boolean; csp?: CspDirectives } = {}): Record<string, string> {
  return {
    'content-security-policy': pageCsp(html, opts.csp),
    ...BASE_SECURITY_HEADERS,
    ...(opts.production ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
  };
}

/** helmet 8's other default headers (everything but CSP and HSTS), for raw answers. */
export const BASE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
});
