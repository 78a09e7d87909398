import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { REDIS_CLIENT } from '@platform/rate-limit';
import type Redis from 'ioredis';
import { KnowledgeApiConfig } from '../config';

/** Renews a lock only while it is still this holder's (compare, then expire: one step in Redis). */
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * What the MCP control shares between replicas: small JSON values (the configuration, the start
 * time), the log entries (a capped list) and the log tailer's lock. In Redis (REDIS_URL, keys under
 * REDIS_KEY_PREFIX `mcp:`) or, without it, in this process (one replica).
 */
@Injectable()
export class McpStore {
  private readonly prefix: string;
  private readonly values = new Map<string, string>();
  private readonly lists = new Map<string, string[]>();
  private readonly locks = new Map<string, { token: string; until: number }>();

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis | null,
    config: KnowledgeApiConfig,
  ) {
    this.prefix = `${config.REDIS_KEY_PREFIX}mcp:`;
  }

  get shared(): boolean {
    return this.redis !== null;
  }

  async get<T>(key: string): Promise<T | undefined> {
    const raw = this.redis ? await this.redis.get(this.prefix + key) : this.values.get(key);
    return raw == null ? undefined : (JSON.parse(raw) as T);
  }

  async set(key: string, value: unknown): Promise<void> {
    const raw = JSON.stringify(value);
    if (this.redis) await this.redis.set(this.prefix + key, raw);
    else this.values.set(key, raw);
  }

  /** Appends to a list kept to its last `max` items. */
  async push(key: string, items: unknown[], max: number): Promise<void> {
    if (!items.length) return;
    const raws = items.map((i) => JSON.stringify(i));
    if (this.redis) {
      await this.redis.multi().rpush(this.prefix + key, ...raws).ltrim(this.prefix + key, -max, -1).exec();
      return;
    }
    const list = [...(this.lists.get(key) ?? []), ...raws];
    this.lists.set(key, list.slice(-max));
  }

  /** The last `count` items of a list, oldest first. */
  async last<T>(key: string, count: number): Promise<T[]> {
    const raws = this.redis ? await this.redis.lrange(this.prefix + key, -count, -1) : (this.lists.get(key) ?? []).slice(-count);
    return raws.map((r) => JSON.parse(r) as T);
  }

  async clear(key: string): Promise<void> {
    if (this.redis) await this.redis.del(this.prefix + key);
    else this.lists.delete(key);
  }

  /** Takes or renews the lock `key` for `ttlMs` as `token`'s holder; false while another holds it. */
  async hold(key: string, token: string, ttlMs: number): Promise<boolean> {
    if (this.redis) {
      const k = this.prefix + key;
      if ((await this.redis.set(k, token, 'PX', ttlMs, 'NX')) === 'OK') return true;
      return Number(await this.redis.eval(RENEW, 1, k, token, String(ttlMs))) === 1;
    }
    const now = Date.now();
    const held = this.locks.get(key);
    if (held && held.token !== token && held.until > now) return false;
    this.locks.set(key, { token, until: now + ttlMs });
    return true;
  }

  async release(key: string, token: string): Promise<void> {
    if (this.redis) await this.redis.eval(RELEASE, 1, this.prefix + key, token);
    else if (this.locks.get(key)?.token === token) this.locks.delete(key);
  }

  static token(): string {
    return randomUUID();
  }
}
