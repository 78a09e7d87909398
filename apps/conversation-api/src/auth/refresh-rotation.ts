import { generateApiKey, hashApiKey } from '@platform/auth';

/** An opaque token (`crt_` + 256 random bits) and its SHA-256, which is what is stored. */
export function newOpaqueToken(prefix: string): { token: string; hash: string } {
  const token = generateApiKey(prefix);
  return { token, hash: hashApiKey(token) };
}

export const tokenHash = (token: string): string => hashApiKey(token);
