import { Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { generatedSecret } from '../access/session-secret';
import { EmailApiConfig } from '../config';

const VERSION = 'v1';

/**
 * Encrypts the DKIM private keys at rest: AES-256-GCM with a random 96-bit nonce per value, the key
 * being the SHA-256 of DKIM_KEY_SECRET (required in production; elsewhere generated once into
 * `${DATA_DIR}/email-api/dkim-key-secret`). Stored form: `v1.<nonce>.<tag>.<ciphertext>` (base64url).
 */
@Injectable()
export class KeyVault {
  private readonly key: Buffer;

  constructor(config: EmailApiConfig) {
    this.key = createHash('sha256').update(loadSecret(config)).digest();
  }

  encrypt(plain: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, nonce.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
  }

  /** Throws when the value was not encrypted with this secret (or was altered). */
  decrypt(stored: string): string {
    const [version, nonce, tag, data] = stored.split('.');
    if (version !== VERSION || !nonce || !tag || data === undefined) throw new Error('not an encrypted key of this service');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}

function loadSecret(config: EmailApiConfig): string {
  return config.DKIM_KEY_SECRET || generatedSecret(config, 'dkim-key-secret');
}
