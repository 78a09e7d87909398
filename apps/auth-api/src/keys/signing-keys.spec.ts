import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { developmentKeyFile, SigningKeys } from './signing-keys';

describe('SigningKeys', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'auth-keys-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('generates the development key once, with mode 0600, and reuses it', () => {
    const file = developmentKeyFile(dir);
    const first = SigningKeys.fromFile(file);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const second = SigningKeys.fromFile(file);
    expect(second.kid).toBe(first.kid);
  });

  it('reads a PEM from the environment, also with literal \\n escapes', () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const a = SigningKeys.fromPem(pem);
    const b = SigningKeys.fromPem(pem.replace(/\n/g, '\\n'));
    expect(b.kid).toBe(a.kid);
  });

  it('publishes the public key as a JWK with kid, alg and use, and no private parts', () => {
    const keys = new SigningKeys(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
    const [jwk] = keys.jwks().keys;
    expect(jwk).toMatchObject({ kty: 'RSA', kid: keys.kid, alg: 'RS256', use: 'sig', e: 'AQAB' });
    expect(jwk).not.toHaveProperty('d');
    expect(jwk).not.toHaveProperty('p');
  });

  it('refuses unusable keys with a clear message', () => {
    expect(() => SigningKeys.fromPem('not a pem')).toThrow(/AUTH_JWT_PRIVATE_KEY could not be read/);
    expect(() => new SigningKeys(generateKeyPairSync('ed25519').privateKey)).toThrow(/RSA/);
    expect(() => new SigningKeys(generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey)).toThrow(/at least 2048 bits; got 1024/);
    expect(() => new SigningKeys(generateKeyPairSync('rsa', { modulusLength: 2040 }).privateKey)).toThrow(/got 2040/);
    expect(new SigningKeys(generateKeyPairSync('rsa', { modulusLength: 3072 }).privateKey).kid).toMatch(/^[\w-]{43}$/);
  });
});
