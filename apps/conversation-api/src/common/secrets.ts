import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ConversationApiConfig } from '../config';

/**
 * A secret from the environment, else (outside production, where the config already refused a
 * missing one) a random value generated once and kept in `${DATA_DIR}/conversation-api/<file>`
 * (mode 0600), so development sessions and stored channel credentials survive restarts.
 */
function keptSecret(config: ConversationApiConfig, value: string | undefined, file: string, make: () => string, valid: (s: string) => boolean): string {
  if (value) return value;
  const dir = path.join(config.DATA_DIR, 'conversation-api');
  const full = path.join(dir, file);
  if (existsSync(full)) {
    const stored = readFileSync(full, 'utf8').trim();
    if (valid(stored)) return stored;
  }
  mkdirSync(dir, { recursive: true });
  const secret = make();
  writeFileSync(full, `${secret}\n`, { mode: 0o600 });
  chmodSync(full, 0o600);
  return secret;
}

export function loadJwtSecret(config: ConversationApiConfig): string {
  return keptSecret(config, config.CONVERSATION_JWT_SECRET, 'jwt-secret', () => randomBytes(48).toString('base64url'), (s) => s.length >= 32);
}

export function loadEncryptionKey(config: ConversationApiConfig): Buffer {
  const hex = keptSecret(config, config.CONVERSATION_ENCRYPTION_KEY, 'encryption-key', () => randomBytes(32).toString('hex'), (s) => /^[0-9a-fA-F]{64}$/.test(s));
  return Buffer.from(hex, 'hex');
}

const VERSION = 'v1';

/** AES-256-GCM: `v1.<iv>.<tag>.<ciphertext>` (base64url parts); the associated data binds a value to its row. */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the encryption key must be 32 bytes');
  }

  seal(plain: string, associated = ''): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(associated));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
  }

  /** Throws when the value was not sealed with this key and associated data. */
  open(sealed: string, associated = ''): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || data === undefined) throw new Error('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(associated));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
