import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const ID_BYTES = 20;
/**
 * Random bytes are drawn 128 ids at a time (as node:crypto's randomUUID caches its entropy): one call
 * into the CSPRNG per id showed in the profile of POST /v1/track, which makes two ids per request.
 */
const POOL_BYTES = ID_BYTES * 128;
let pool = Buffer.alloc(0);
let offset = 0;

export type IdPrefix = 'cnt' | 'evt' | 'eml' | 'job' | 'mev';

/** The shape of an id made by {@link newId}, as a regular expression source (for the OpenAPI `pattern` of response ids). */
export function idPattern(prefix: IdPrefix): string {
  return `^${prefix}_[0-9a-z]{${ID_BYTES}}$`;
}

/** A prefixed random id such as `cnt_k3j9…` (20 base-36 characters, about 103 bits). */
export function newId(prefix: IdPrefix): string {
  if (offset + ID_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  let out = `${prefix}_`;
  for (let i = offset; i < offset + ID_BYTES; i++) out += ALPHABET[pool[i] % 36];
  offset += ID_BYTES;
  return out;
}
