import { createLocalJWKSet, type JWK } from 'jose';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { decodeJwt, JwtVerificationError, verifyJwt } from './jwt-verify';

const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');

function makeToken(key: KeyObject, header: { alg: string; [h: string]: unknown }, claims: object): string {
  const input = `${b64(header)}.${b64(claims)}`;
  const signature = header.alg.startsWith('ES') ? sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }) : sign('sha256', Buffer.from(input), key);
  return `${input}.${signature.toString('base64url')}`;
}

const nowSec = 1_800_000_000;
const now = () => nowSec * 1000;
const claims = { sub: 'u1', iss: 'auth-api', aud: 'logistics', exp: nowSec + 60 };
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });

async function codeOf(work: Promise<unknown>): Promise<string> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(JwtVerificationError);
  return (err as JwtVerificationError).code;
}

describe('verifyJwt (jose)', () => {
  it('verifies with a public key and returns the claims', async () => {
    const token = makeToken(rsa.privateKey, { alg: 'RS256' }, claims);
    await expect(verifyJwt(token, rsa.publicKey, { algorithms: ['RS256'], issuer: 'auth-api', audience: 'logistics', now })).resolves.toEqual(claims);
  });

  it('refuses an ES256 token checked with a P-384 key, and an algorithm not listed', async () => {
    expect(await codeOf(verifyJwt(makeToken(p384.privateKey, { alg: 'ES256' }, claims), p384.publicKey, { algorithms: ['ES256'], now }))).toBe('algorithm');
    expect(await codeOf(verifyJwt(makeToken(p256.privateKey, { alg: 'ES256' }, claims), p256.publicKey, { algorithms: ['RS256'], now }))).toBe('algorithm');
    await expect(verifyJwt(makeToken(p256.privateKey, { alg: 'ES256' }, claims), p256.publicKey, { algorithms: ['ES256'], now })).resolves.toMatchObject({ sub: 'u1' });
  });

  it('refuses RSA keys shorter than 2048 bits', async () => {
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(await codeOf(verifyJwt(makeToken(weak.privateKey, { alg: 'RS256' }, claims), weak.publicKey, { algorithms: ['RS256'], now }))).toBe('algorithm');
  });

  it('refuses critical header extensions, and tells malformed tokens apart', async () => {
    const crit = makeToken(rsa.privateKey, { alg: 'RS256', crit: ['exp'], exp: 1 }, claims);
    expect(await codeOf(verifyJwt(crit, rsa.publicKey, { algorithms: ['RS256'], now }))).toBe('malformed');
    expect(() => decodeJwt('a.b')).toThrow(JwtVerificationError);
    expect(() => decodeJwt(`${b64({ typ: 'JWT' })}.${b64(claims)}.x`)).toThrow(/lacks alg/);
  });

  it('checks exp only when required, with the clock tolerance', async () => {
    const noExp = makeToken(rsa.privateKey, { alg: 'RS256' }, { sub: 'u1' });
    expect(await codeOf(verifyJwt(noExp, rsa.publicKey, { algorithms: ['RS256'], now }))).toBe('claims');
    await expect(verifyJwt(noExp, rsa.publicKey, { algorithms: ['RS256'], now, requireExp: false })).resolves.toEqual({ sub: 'u1' });
    const justExpired = makeToken(rsa.privateKey, { alg: 'RS256' }, { exp: nowSec - 5 });
    expect(await codeOf(verifyJwt(justExpired, rsa.publicKey, { algorithms: ['RS256'], now }))).toBe('expired');
    await expect(verifyJwt(justExpired, rsa.publicKey, { algorithms: ['RS256'], now, clockToleranceSec: 10 })).resolves.toEqual({ exp: nowSec - 5 });
  });

  it('looks keys up by kid in a key set, refusing a kid the set lacks', async () => {
    const keys = createLocalJWKSet({ keys: [{ ...(rsa.publicKey.export({ format: 'jwk' }) as JWK), kid: 'r1', alg: 'RS256' }] });
    await expect(verifyJwt(makeToken(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, claims), keys, { algorithms: ['RS256'], now })).resolves.toMatchObject({ sub: 'u1' });
    expect(await codeOf(verifyJwt(makeToken(rsa.privateKey, { alg: 'RS256', kid: 'r2' }, claims), keys, { algorithms: ['RS256'], now }))).toBe('unknown_kid');
  });
});
