import { decodeJwt as joseDecodeJwt, decodeProtectedHeader, jwtVerify, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import { createPublicKey, type JsonWebKey, type KeyObject, type webcrypto } from 'node:crypto';

/** Algorithms the verifier accepts: RSA PKCS#1 v1.5, ECDSA and EdDSA (Ed25519). */
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

export interface DecodedJwt {
  header: JwtHeader;
  claims: JwtClaims;
}

/** Parses header and claims of a compact JWS (jose's decoders), checking nothing but its shape. */
export function decodeJwt(token: string): DecodedJwt {
  let header: Record<string, unknown>;
  let claims: JwtClaims;
  try {
    claims = joseDecodeJwt(token) as JwtClaims;
    header = decodeProtectedHeader(token) as Record<string, unknown>;
  } catch (err) {
    throw new JwtVerificationError('malformed', `JWT is malformed: ${(err as Error).message}`);
  }
  if (typeof header['alg'] !== 'string') throw new JwtVerificationError('malformed', 'JWT header lacks alg');
  // RFC 7515 §4.1.11: extensions the recipient must understand; this verifier understands none.
  if (header['crit'] !== undefined) throw new JwtVerificationError('malformed', 'JWT header has critical extensions (crit)');
  return { header: header as unknown as JwtHeader, claims };
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

export interface VerifyJwtOptions extends ClaimChecks {
  /** Accepted algorithms (required: `none` and HMAC are never among them). */
  algorithms: JwsAlgorithm[];
}

/** A public key, or jose's key lookup (for example `createLocalJWKSet`, which picks by `kid`). */
export type JwtVerificationKey = KeyObject | webcrypto.CryptoKey | JWTVerifyGetKey;

/**
 * Verifies a compact JWS with jose's `jwtVerify`: the algorithm is one of `algorithms` and fits the
 * key (an ES* key on that algorithm's curve), the signature holds, `exp` (required unless
 * `requireExp: false`), `nbf`, `iss` and `aud` check out; a `crit` header is refused. Returns the
 * claims; throws {@link JwtVerificationError}.
 */
export async function verifyJwt<T extends JwtClaims = JwtClaims>(token: string, key: JwtVerificationKey, options: VerifyJwtOptions): Promise<T> {
  const { header } = decodeJwt(token);
  if (!(options.algorithms as string[]).includes(header.alg)) throw new JwtVerificationError('algorithm', `JWT algorithm ${header.alg} is not accepted`);
  const verifyOptions: JWTVerifyOptions = {
    algorithms: options.algorithms,
    issuer: options.issuer,
    audience: options.audience,
    clockTolerance: options.clockToleranceSec ?? 0,
    requiredClaims: (options.requireExp ?? true) ? ['exp'] : [],
    currentDate: new Date(options.now?.() ?? Date.now()),
  };
  try {
    const { payload } = typeof key === 'function' ? await jwtVerify(token, key, verifyOptions) : await jwtVerify(token, key, verifyOptions);
    return payload as T;
  } catch (err) {
    throw verificationError(err);
  }
}

/** jose's error as a {@link JwtVerificationError} with the code callers know. */
function verificationError(err: unknown): JwtVerificationError {
  if (err instanceof JwtVerificationError) return err;
  const { code, claim, reason, message } = err as { code?: string; claim?: string; reason?: string; message: string };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return new JwtVerificationError('expired', 'JWT has expired');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'nbf') return new JwtVerificationError('not_yet_valid', 'JWT is not valid yet');
      if (claim === 'exp' && reason !== 'missing') return new JwtVerificationError('expired', 'JWT has expired');
      return new JwtVerificationError('claims', `JWT claim ${claim ?? ''} is not accepted: ${message}`);
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return new JwtVerificationError('signature', 'JWT signature is invalid');
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return new JwtVerificationError('malformed', `JWT is malformed: ${message}`);
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return new JwtVerificationError('unknown_kid', 'No key of the set has the JWT\'s kid and fits its algorithm');
    case 'ERR_JWKS_INVALID':
      return new JwtVerificationError('jwks', `The JWKS is invalid: ${message}`);
    default:
      // ERR_JOSE_ALG_NOT_ALLOWED, ERR_JOSE_NOT_SUPPORTED, ERR_JWKS_MULTIPLE_MATCHING_KEYS, and jose's
      // TypeErrors for a key that does not fit the algorithm (type, curve, RSA size).
      return new JwtVerificationError('algorithm', `The key does not fit the JWT: ${message}`);
  }
}

/** Imports a public JWK (RSA, EC or OKP) as a KeyObject (throws when this runtime cannot). */
export function publicKeyFromJwk(jwk: JsonWebKey): KeyObject {
  return createPublicKey({ key: jwk, format: 'jwk' });
}
