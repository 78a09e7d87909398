import { Algorithm, hash, verify } from '@node-rs/argon2';

// `Algorithm` is a const enum in the package's typings and an empty object at run time, so the
// numeric value is spelled out (2 = Argon2id).
const ARGON2ID = 2 as Algorithm;

/** OWASP's minimum for argon2id: 19 MiB, 2 passes, 1 lane. */
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Hashes a password with argon2id; the result is a PHC string carrying its own salt and parameters. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

let dummyHash: Promise<string> | undefined;

/**
 * Verifies a password against a stored argon2 hash. A hash that is missing (unknown user) or
 * unparseable is compared against a dummy hash instead, so the answer takes the same time whether
 * or not the account exists; the result is then always false.
 */
export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  if (!storedHash || !storedHash.startsWith('$argon2')) {
    dummyHash ??= hashPassword('dummy password for unknown accounts');
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}
