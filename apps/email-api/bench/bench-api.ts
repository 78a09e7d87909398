/**
 * What the email-api benches share: the settings of the service they start, JSON requests to it,
 * a fresh account's project, a verified sending domain and the load generator's process.
 */
import type { FakeDnsServer } from '@platform/testing';
import { randomUUID } from 'node:crypto';

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** A name for this run's Redis keys and RabbitMQ names (the schema is startBenchService's). */
export function benchTag(prefix = 'email_bench'): string {
  return `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
}

/**
 * The service's settings in every bench: no API rate limit in the way, Redis keys under `tag`,
 * fresh secrets, the inbound SMTP receiver on a free loopback port and, with `amqpUrl`, RabbitMQ
 * under names of this run.
 */
export function benchEnv(tag: string, amqpUrl?: string): Record<string, string> {
  return {
    EMAIL_RATE_LIMIT_PER_MINUTE: '100000000',
    REDIS_KEY_PREFIX: `${tag}:`,
    JWT_SECRET: randomUUID() + randomUUID(),
    DKIM_KEY_SECRET: randomUUID() + randomUUID(),
    INBOUND_SMTP_PORT: '0',
    INBOUND_SMTP_HOST: '127.0.0.1',
    ...(amqpUrl ? { AMQP_URL: amqpUrl, EVENTS_EXCHANGE: `${tag}.events`, EVENTS_DLX: `${tag}.dlx`, EVENTS_QUEUE_PREFIX: `${tag}.` } : {}),
  };
}

/** A JSON request; throws with the answer unless it is 2xx. */
export async function json(url: string, init: RequestInit = {}): Promise<{ body: any; headers: Headers }> {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) } });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url} answered ${res.status}: ${text}`);
  return { body: text ? JSON.parse(text) : null, headers: res.headers };
}

export interface BenchProject {
  id: string;
  publicKey: string;
  secretKey: string;
}

/** Signs a new account up and creates its project; answers the project and the Authorization header of its secret key. */
export async function benchProject(serviceUrl: string): Promise<{ project: BenchProject; auth: { authorization: string } }> {
  const signup = await json(`${serviceUrl}/auth/signup`, { method: 'POST', body: JSON.stringify({ email: `bench-${randomUUID()}@example.com`, password: 'benchmark password' }) });
  const cookie = String(signup.headers.get('set-cookie')).split(';')[0];
  const project = (await json(`${serviceUrl}/users/@me/projects`, { method: 'POST', headers: { cookie }, body: JSON.stringify({ name: 'bench' }) })).body as BenchProject;
  return { project, auth: { authorization: `Bearer ${project.secretKey}` } };
}

/**
 * Adds `domain` to the project, publishes its records in `dns` (the test's DNS server standing in
 * for the domain's DNS host) and verifies it; answers the domain as the API does.
 */
export async function verifiedBenchDomain(serviceUrl: string, auth: { authorization: string }, dns: FakeDnsServer, domain: string): Promise<{ id: string }> {
  const added = (await json(`${serviceUrl}/domains`, { method: 'POST', headers: auth, body: JSON.stringify({ domain }) })).body;
  const byName = new Map<string, { TXT: string[]; MX: Array<{ priority: number; exchange: string }> }>();
  for (const r of added.records as Array<{ type: string; name: string; value: string; priority?: number }>) {
    const e = byName.get(r.name) ?? { TXT: [], MX: [] };
    if (r.type === 'TXT') e.TXT.push(r.value);
    else e.MX.push({ priority: r.priority ?? 10, exchange: r.value });
    byName.set(r.name, e);
  }
  for (const [name, e] of byName) dns.set(name, e);
  if ((await json(`${serviceUrl}/domains/${added.id}/verify`, { headers: auth })).body.status !== 'verified') throw new Error('bench: the domain did not verify');
  return added;
}

