import { timingSafeEqual } from 'node:crypto';
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import type { Request } from 'express';
import { KnowledgeMcpConfig } from '../config';

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

/** `example.com:3009` → `example.com`; `[::1]:3009` → `[::1]`. */
export function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  return h.split(':')[0];
}

/**
 * The checks every MCP request passes, in this order:
 * 1. `Host` names one of MCP_ALLOWED_HOSTS (port-agnostic; `*` accepts any) — 403 otherwise, a
 *    defence against DNS rebinding;
 * 2. an `Origin` header, when a browser sends one, is one of MCP_ALLOWED_ORIGINS (unset: an origin
 *    whose host name is an allowed host) — 403 otherwise;
 * 3. `Authorization: Bearer <KNOWLEDGE_MCP_API_KEY>` when the key is set — 401 with
 *    `WWW-Authenticate: Bearer` otherwise.
 */
@Injectable()
export class McpAccessGuard implements CanActivate {
  private readonly hosts: string[];
  private readonly origins: string[] | undefined;
  private readonly key: Buffer | undefined;

  constructor(config: KnowledgeMcpConfig) {
    this.hosts = list(config.MCP_ALLOWED_HOSTS);
    this.origins = config.MCP_ALLOWED_ORIGINS ? list(config.MCP_ALLOWED_ORIGINS).map((o) => o.replace(/\/+$/, '')) : undefined;
    this.key = config.KNOWLEDGE_MCP_API_KEY ? Buffer.from(config.KNOWLEDGE_MCP_API_KEY) : undefined;
  }

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    this.checkHost(req.headers.host);
    this.checkOrigin(req.headers.origin);
    this.checkKey(req.headers.authorization);
    return true;
  }

  hostAllowed(hostname: string): boolean {
    return this.hosts.includes('*') || this.hosts.includes(hostname);
  }

  private checkHost(host: string | undefined): void {
    if (!host || !this.hostAllowed(hostnameOf(host))) {
      throw new ApiError(403, 'HOST_NOT_ALLOWED', `Host ${JSON.stringify(host ?? '')} is not allowed: add its name to MCP_ALLOWED_HOSTS`);
    }
  }

  private checkOrigin(origin: string | undefined): void {
    if (origin === undefined) return;
    const normalized = origin.trim().toLowerCase().replace(/\/+$/, '');
    let allowed: boolean;
    if (this.origins) allowed = this.origins.includes(normalized);
    else {
      try {
        allowed = this.hostAllowed(hostnameOf(new URL(normalized).host));
      } catch {
        allowed = false;
      }
    }
    if (!allowed) throw new ApiError(403, 'ORIGIN_NOT_ALLOWED', `Origin ${JSON.stringify(origin)} is not allowed: add it to MCP_ALLOWED_ORIGINS`);
  }

  private checkKey(authorization: string | undefined): void {
    if (!this.key) return;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    const given = m ? Buffer.from(m[1]) : undefined;
    if (!given || given.length !== this.key.length || !timingSafeEqual(given, this.key)) {
      throw new ApiError(401, 'UNAUTHORIZED', authorization ? 'Invalid bearer key' : 'Authorization: Bearer <key> is required (KNOWLEDGE_MCP_API_KEY)', {
        headers: { 'www-authenticate': 'Bearer realm="knowledge-mcp"' },
      });
    }
  }
}
