import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const JWT_ALGORITHM = 'RS256';

export interface PublicJwk extends JsonWebKey {
  kid: string;
  alg: string;
  use: 'sig';
}

/** RFC 7638 thumbprint of an RSA public key: the `kid` of the key, stable across restarts. */
export function rsaThumbprint(publicKey: KeyObject): string {
  const jwk = publicKey.export({ format: 'jwk' });
  const canonical = JSON.stringify({ e: jwk.e, kty: 'RSA', n: jwk.n });
  return createHash('sha256').update(canonical).digest('base64url');
}

/**
 * The RSA modulus length, read from the public JWK. Not `asymmetricKeyDetails`: on Node 20, reading
 * it from a key just made by generateKeyPairSync can deadlock the process (the details hold the key's
 * lock while allocating; a garbage collection then runs the finished key-generation job's destructor,
 * which waits for the same lock) — seen as a hung test.
 */
function modulusBits(publicKey: KeyObject): number {
  const n = Buffer.from(publicKey.export({ format: 'jwk' }).n ?? '', 'base64url');
  return n.length === 0 ? 0 : (n.length - 1) * 8 + (32 - Math.clz32(n[0]));
}

/** The signing key pair of the service: a PEM private key, its public half and its `kid`. */
export class SigningKeys {
  readonly publicKey: KeyObject;
  readonly kid: string;

  constructor(readonly privateKey: KeyObject) {
    if (privateKey.asymmetricKeyType !== 'rsa') {
      throw new Error(`The JWT signing key must be an RSA key (RS256); got ${privateKey.asymmetricKeyType}`);
    }
    this.publicKey = createPublicKey(privateKey);
    const bits = modulusBits(this.publicKey);
    if (bits < 2048) throw new Error(`The JWT signing key must have at least 2048 bits; got ${bits}`);
    this.kid = rsaThumbprint(this.publicKey);
  }

  get privateKeyPem(): string {
    return this.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  }

  get publicKeyPem(): string {
    return this.publicKey.export({ format: 'pem', type: 'spki' }).toString();
  }

  /** The JSON Web Key Set published at `/.well-known/jwks.json`. */
  jwks(): { keys: PublicJwk[] } {
    return { keys: [{ ...this.publicKey.export({ format: 'jwk' }), kid: this.kid, alg: JWT_ALGORITHM, use: 'sig' }] };
  }

  /** From a PEM (literal `\n` escapes, as env files often carry them, are turned into newlines). */
  static fromPem(pem: string): SigningKeys {
    let key: KeyObject;
    try {
      key = createPrivateKey(pem.includes('\\n') ? pem.replace(/\\n/g, '\n') : pem);
    } catch (err) {
      throw new Error(`AUTH_JWT_PRIVATE_KEY could not be read as a PEM private key: ${(err as Error).message}`);
    }
    return new SigningKeys(key);
  }

  /**
   * The development key: read from `file`, or generated (RSA 2048) and written there with mode 0600
   * when missing. Two processes starting at once may both generate; the exclusive create makes the
   * first one win and the other reads its key.
   */
  static fromFile(file: string): SigningKeys {
    if (!fs.existsSync(file)) {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      try {
        fs.writeFileSync(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    return SigningKeys.fromPem(fs.readFileSync(file, 'utf8'));
  }
}

/** Where the development key lives. */
export function developmentKeyFile(dataDir: string): string {
  return path.resolve(dataDir, 'auth-api', 'jwt-private.pem');
}
