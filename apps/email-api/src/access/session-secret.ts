import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { EmailApiConfig } from '../config';

/**
 * The HMAC secret of sessions and unsubscribe links: JWT_SECRET when set (required in production),
 * else a random secret generated once and kept in `${DATA_DIR}/email-api/jwt-secret` (mode 0600),
 * so development sessions survive restarts.
 */
export function loadSessionSecret(config: EmailApiConfig): string {
  return config.JWT_SECRET || generatedSecret(config, 'jwt-secret');
}

/** A random secret generated once into `${DATA_DIR}/email-api/<name>` (mode 0600) and read back afterwards. */
export function generatedSecret(config: EmailApiConfig, name: string): string {
  const dir = path.join(config.DATA_DIR, 'email-api');
  const file = path.join(dir, name);
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored.length >= 32) return stored;
  }
  mkdirSync(dir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}
