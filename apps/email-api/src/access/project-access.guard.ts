import { Inject, Injectable, SetMetadata, UseGuards, applyDecorators, createParamDecorator, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth, ApiCookieAuth, ApiHeader } from '@nestjs/swagger';
import { bearerToken, cookieValue, hashApiKey } from '@platform/auth';
import { ApiError } from '@platform/errors';
import { rateLimitHeaders, resetSeconds } from '@platform/rate-limit';
import type { Response } from 'express';
import type { ServerResponse } from 'node:http';
import { ApiErrors, type ErrorDocs } from '../common/api-errors.decorator';
import { SESSION_COOKIE } from '../config';
import { ProjectRateLimiter } from '../rate-limit/project-rate-limiter';
import { invalidApiKey, missingAuth, missingProject, notLoggedIn, projectAccessDenied, projectDisabled, roleRequired } from './errors';
import type { Project } from './project';
import { ProjectDirectory } from './project-directory.service';
import type { ProjectRole } from './roles';
import { SessionService } from './session.service';
import type { User } from './user';

export interface ProjectAccessOptions {
  /** The public key (pk_) is accepted: only POST /v1/track (the spec's one public-key endpoint). */
  publicKey?: boolean;
  /** A dashboard session (JWT cookie + project membership) is accepted: dashboard endpoints. */
  session?: boolean;
  /** Session users need one of these roles (the secret key has every right in its own project). */
  roles?: ProjectRole[];
  /**
   * The project is named by this path parameter instead of the X-Project-Id header; a key must belong
   * to that project (else 404, as for a project the session user is no member of).
   */
  projectParam?: string;
  /**
   * The project's settings (and billing): served even while the project is disabled, so that a
   * project disabled for non-payment or review can still be fixed. Elsewhere a disabled project
   * keeps its reads (GET, HEAD) and is refused sends and writes.
   */
  settings?: boolean;
}

const READS = new Set(['GET', 'HEAD']);

/** What the guard resolved for the request. */
export interface ProjectContext {
  project: Project;
  via: 'public_key' | 'secret_key' | 'session';
  user?: User;
  role?: ProjectRole;
}

const ACCESS = 'email:project-access';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type AccessRequest = {
  method?: string;
  headers: Record<string, string | string[] | undefined>;
  params?: Record<string, string>;
  projectContext?: ProjectContext;
};

/**
 * Authenticates a project-scoped request and counts it against the project's rate limit.
 *
 * - `Authorization: Bearer sk_…`: the project of the secret key; every endpoint.
 * - `Authorization: Bearer pk_…`: the project of the public key; only where `publicKey` is set,
 *   elsewhere 401 `INVALID_API_KEY`.
 * - no Authorization header and `session`: the JWT cookie, the project from `X-Project-Id` (or the
 *   path), membership and role checked (403 `PROJECT_ACCESS_DENIED` / `FORBIDDEN`).
 * - a disabled project: 403 `PROJECT_DISABLED` for sends and writes (any method but GET and HEAD),
 *   except on the project's settings (`settings`); reads still answer.
 * - over the limit: 429 `RATE_LIMIT_EXCEEDED` with `Retry-After`; every answer carries `RateLimit-Limit`,
 *   `RateLimit-Remaining` and `RateLimit-Reset`. While Redis is unreachable each replica counts in its
 *   own memory (the limit loosens to per-replica counts, logged; `/readyz` reports redis down).
 */
@Injectable()
export class ProjectAccessGuard implements CanActivate {

  constructor(
    private readonly reflector: Reflector,
    private readonly projects: ProjectDirectory,
    private readonly sessions: SessionService,
    @Inject(ProjectRateLimiter) private readonly limiter: ProjectRateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const opts = this.reflector.getAllAndOverride<ProjectAccessOptions>(ACCESS, [context.getHandler(), context.getClass()]) ?? {};
    await this.authorize(context.switchToHttp().getRequest<AccessRequest>(), context.switchToHttp().getResponse<Response>(), opts);
    return true;
  }

  /**
   * The guard's whole check for a request with these options: resolves the project (`req.projectContext`),
   * counts the request and sets the rate-limit headers on `res`; throws the access errors. Also what
   * the routes answered before Express (the raw `POST /v1/track`) authenticate with.
   */
  async authorize(req: AccessRequest, res: Pick<ServerResponse, 'setHeader'>, opts: ProjectAccessOptions): Promise<ProjectContext> {
    const useKey = req.headers['authorization'] !== undefined;
    const ctx = useKey ? await this.byKey(req, opts) : await this.bySession(req, opts);
    if (opts.projectParam && ctx.project.id !== req.params?.[opts.projectParam]) throw projectNotFound();
    if (ctx.project.disabled && !opts.settings && !READS.has((req.method ?? 'GET').toUpperCase())) throw projectDisabled(ctx.project.disabledReason);
    await this.countRequest(ctx.project.id, res);
    req.projectContext = ctx;
    return ctx;
  }

  private async byKey(req: AccessRequest, opts: ProjectAccessOptions): Promise<ProjectContext> {
    const key = bearerToken(req);
    if (!key) throw invalidApiKey('The Authorization header must be `Bearer <key>`');
    if (key.startsWith('pk_')) {
      if (!opts.publicKey) throw invalidApiKey('A public key (pk_…) may only call POST /v1/track; use the secret key (sk_…) here');
      const project = await this.projects.findByPublicKey(key);
      if (!project) throw invalidApiKey();
      return { project, via: 'public_key' };
    }
    if (key.startsWith('sk_')) {
      const project = await this.projects.findBySecretKeyHash(hashApiKey(key));
      if (!project) throw invalidApiKey();
      return { project, via: 'secret_key' };
    }
    throw invalidApiKey('API keys start with pk_ (public) or sk_ (secret)');
  }

  private async bySession(req: AccessRequest, opts: ProjectAccessOptions): Promise<ProjectContext> {
    if (!opts.session) throw missingAuth();
    const token = cookieValue(req, SESSION_COOKIE);
    if (!token) throw missingAuth();
    const user = await this.sessions.authenticate(token);
    if (!user) throw notLoggedIn();
    const header = req.headers['x-project-id'];
    const projectId = opts.projectParam ? req.params?.[opts.projectParam] : Array.isArray(header) ? header[0] : header;
    if (!projectId) throw missingProject();
    if (!UUID.test(projectId)) throw opts.projectParam ? projectNotFound() : projectAccessDenied();
    const project = await this.projects.findForMember(projectId, user.id);
    if (!project) throw opts.projectParam ? projectNotFound() : projectAccessDenied();
    if (opts.roles && !opts.roles.includes(project.role)) throw roleRequired(opts.roles);
    return { project, via: 'session', user, role: project.role };
  }

  /** Counts the request (in memory while Redis fails: see createRateLimiter). */
  private async countRequest(projectId: string, res: Pick<ServerResponse, 'setHeader'>): Promise<void> {
    const decision = await this.limiter.hit(projectId);
    const { 'Retry-After': retryAfter, ...headers } = rateLimitHeaders(decision);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    if (!decision.allowed) {
      throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `Rate limit of ${decision.limit} requests per minute exceeded for this project`, {
        suggestion: `Wait ${resetSeconds(decision)} seconds (Retry-After) before sending more requests, and spread requests over the minute.`,
        headers: { 'Retry-After': retryAfter },
      });
    }
  }
}

export const projectNotFound = () =>
  new ApiError(404, 'PROJECT_NOT_FOUND', 'Project not found', {
    suggestion: 'Check the project id; list your projects with GET /users/@me/projects.',
  });

/** The errors {@link ProjectAccessGuard} gives with these options (the Swagger entries of every guarded route). */
function accessErrors(opts: ProjectAccessOptions): ErrorDocs {
  const keys = opts.publicKey ? 'the public (pk_…) or secret (sk_…) key' : 'the secret key (sk_…)';
  const docs: ErrorDocs = {
    401: [
      `\`MISSING_AUTH\`: no Authorization header${opts.session ? ' and no session cookie' : ''}`,
      `\`INVALID_API_KEY\`: not ${keys}${opts.publicKey ? '' : ' (a public key is refused here)'}, unknown, or rotated`,
      ...(opts.session ? ['`UNAUTHORIZED`: the session cookie is invalid or expired'] : []),
    ].join('; '),
    429: '`RATE_LIMIT_EXCEEDED`: more than the project\'s requests per minute (1000); wait `Retry-After` seconds',
  };
  const forbidden = [
    ...(opts.settings ? [] : ['`PROJECT_DISABLED`: the project is disabled (sends and writes are refused; reads and the project\'s settings still answer)']),
    ...(opts.session && !opts.projectParam ? ['`PROJECT_ACCESS_DENIED`: the session user is no member of the X-Project-Id project'] : []),
    ...(opts.roles ? [`\`FORBIDDEN\`: the session user's role is not ${opts.roles.join(' or ')}`] : []),
  ];
  if (forbidden.length) docs[403] = forbidden.join('; ');
  if (opts.session && !opts.projectParam) docs[400] = '`MISSING_PROJECT`: a session without the `X-Project-Id` header';
  if (opts.projectParam) docs[404] = `\`PROJECT_NOT_FOUND\`: no such project, the session user is no member, or the key belongs to another project`;
  return docs;
}

/** Declares how a handler (or controller) is authenticated; see {@link ProjectAccessGuard}. */
export function ProjectAccess(opts: ProjectAccessOptions = {}): MethodDecorator & ClassDecorator {
  const decorators = [
    SetMetadata(ACCESS, opts),
    UseGuards(ProjectAccessGuard),
    ApiBearerAuth(),
    ApiErrors(accessErrors(opts)),
  ];
  if (opts.session) {
    decorators.push(ApiCookieAuth(SESSION_COOKIE));
    if (!opts.projectParam) {
      decorators.push(ApiHeader({ name: 'X-Project-Id', required: false, description: 'Project of a dashboard session (not needed with the secret key)' }));
    }
  }
  return applyDecorators(...decorators);
}

/** The project context resolved by {@link ProjectAccessGuard}. */
export const CurrentProject = createParamDecorator((_data: unknown, ctx: ExecutionContext): ProjectContext => {
  const context = ctx.switchToHttp().getRequest<AccessRequest>().projectContext;
  if (!context) throw new Error('CurrentProject used on a handler without @ProjectAccess');
  return context;
});
