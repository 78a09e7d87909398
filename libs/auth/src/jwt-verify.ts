import { createPublicKey, verify as cryptoVerify, type JsonWebKey, type KeyObject } from 'node:crypto';

/** Algorithms the verifier accepts: RSA PKCS#1 v1.5, ECDSA and EdDSA (Ed25519/Ed448). */
export type JwsAlgorithm = 'RS256' | 'RS384' | 'RS512' | 'ES256' | 'ES384' | 'ES512' | 'EdDSA';

export interface JwtHeader {
  alg: string;
  kid?: string;
  typ?: string;
}

export interface JwtClaims {
  sub?: string;
  iss?: string;
  aud?: string | string[];
  exp?: number;
  nbf?: number;
  iat?: number;
  jti?: string;
  [claim: string]: unknown;
}

/** Why a token was refused; `code` is stable, `message` is for logs (never the token itself). */
export class JwtVerificationError extends Error {
  constructor(
    readonly code: 'malformed' | 'algorithm' | 'unknown_kid' | 'signature' | 'expired' | 'not_yet_valid' | 'claims' | 'jwks',
    message: string,
  ) {
    super(message);
    this.name = 'JwtVerificationError';
  }
}

const DIGEST: Record<JwsAlgorithm, string | null> = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
  EdDSA: null,
};

export interface DecodedJwt {
  header: JwtHeader;
  claims: JwtClaims;
  signingInput: string;
  signature: Buffer;
}

function parseSegment(segment: string, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // falls through to the error below
  }
  throw new JwtVerificationError('malformed', `JWT ${what} is not a base64url JSON object`);
}

/** Splits a compact JWS and parses header and claims, without checking anything. */
export function decodeJwt(token: string): DecodedJwt {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p)) || !parts[0] || !parts[1]) {
    throw new JwtVerificationError('malformed', 'JWT must be three base64url segments');
  }
  const header = parseSegment(parts[0], 'header');
  if (typeof header['alg'] !== 'string') throw new JwtVerificationError('malformed', 'JWT header lacks alg');
  // RFC 7515 §4.1.11: extensions the recipient must understand; this verifier understands none.
  if (header['crit'] !== undefined) throw new JwtVerificationError('malformed', 'JWT header has critical extensions (crit)');
  return {
    header: header as unknown as JwtHeader,
    claims: parseSegment(parts[1], 'payload') as JwtClaims,
    signingInput: `${parts[0]}.${parts[1]}`,
    signature: Buffer.from(parts[2], 'base64url'),
  };
}

/** The one curve each ECDSA algorithm is defined on (RFC 7518 §3.4). */
const CURVE: Partial<Record<JwsAlgorithm, string>> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };

/** Verifies a decoded token's signature with `key` for `alg`. */
export function verifySignature(decoded: DecodedJwt, key: KeyObject): boolean {
  const alg = decoded.header.alg as JwsAlgorithm;
  if (!Object.hasOwn(DIGEST, alg)) throw new JwtVerificationError('algorithm', `Unsupported JWT algorithm ${alg}`);
  const keyType = key.asymmetricKeyType;
  const fits =
    (alg.startsWith('RS') && keyType === 'rsa') ||
    (alg.startsWith('ES') && keyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === CURVE[alg]) ||
    (alg === 'EdDSA' && (keyType === 'ed25519' || keyType === 'ed448'));
  if (!fits) throw new JwtVerificationError('algorithm', `Key type ${keyType}${keyType === 'ec' ? ` (${key.asymmetricKeyDetails?.namedCurve})` : ''} does not match ${alg}`);
  const data = Buffer.from(decoded.signingInput, 'ascii');
  return alg.startsWith('ES')
    ? cryptoVerify(DIGEST[alg], data, { key, dsaEncoding: 'ieee-p1363' }, decoded.signature)
    : cryptoVerify(DIGEST[alg], data, key, decoded.signature);
}

export interface ClaimChecks {
  issuer?: string | string[];
  audience?: string | string[];
  /** Seconds of leeway for exp and nbf; default 0. */
  clockToleranceSec?: number;
  /** Require an `exp` claim; default true. */
  requireExp?: boolean;
  now?: () => number;
}

/** Checks exp, nbf, iss and aud. Throws {@link JwtVerificationError}. */
export function checkClaims(claims: JwtClaims, checks: ClaimChecks = {}): void {
  const now = Math.floor((checks.now?.() ?? Date.now()) / 1000);
  const leeway = checks.clockToleranceSec ?? 0;
  if (claims.exp === undefined) {
    if (checks.requireExp ?? true) throw new JwtVerificationError('claims', 'JWT has no exp claim');
  } else if (typeof claims.exp !== 'number' || now - leeway >= claims.exp) {
    throw new JwtVerificationError('expired', 'JWT has expired');
  }
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || now + leeway < claims.nbf)) {
    throw new JwtVerificationError('not_yet_valid', 'JWT is not valid yet');
  }
  if (checks.issuer !== undefined) {
    const allowed = Array.isArray(checks.issuer) ? checks.issuer : [checks.issuer];
    if (typeof claims.iss !== 'string' || !allowed.includes(claims.iss)) {
      throw new JwtVerificationError('claims', 'JWT issuer is not accepted');
    }
  }
  if (checks.audience !== undefined) {
    const wanted = Array.isArray(checks.audience) ? checks.audience : [checks.audience];
    const given = Array.isArray(claims.aud) ? claims.aud : claims.aud === undefined ? [] : [claims.aud];
    if (!given.some((a) => wanted.includes(a))) throw new JwtVerificationError('claims', 'JWT audience is not accepted');
  }
}

/** Imports a public JWK (RSA, EC or OKP) as a KeyObject. */
export function publicKeyFromJwk(jwk: JsonWebKey): KeyObject {
  return createPublicKey({ key: jwk, format: 'jwk' });
}
