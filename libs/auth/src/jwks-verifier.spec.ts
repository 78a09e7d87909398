import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { JwksVerifier } from './jwks-verifier';
import { decodeJwt, JwtVerificationError } from './jwt-verify';

const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');

function makeToken(key: KeyObject, header: object, claims: object): string {
  const input = `${b64(header)}.${b64(claims)}`;
  const alg = (header as { alg: string }).alg;
  const signature =
    alg === 'EdDSA'
      ? sign(null, Buffer.from(input), key)
      : alg === 'ES256'
        ? sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' })
        : sign('sha256', Buffer.from(input), key);
  return `${input}.${signature.toString('base64url')}`;
}

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsa2 = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ed = generateKeyPairSync('ed25519');
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });

const jwk = (pub: KeyObject, kid: string, alg: string) => ({ ...pub.export({ format: 'jwk' }), kid, alg, use: 'sig' });

function fakeFetch(sets: Array<{ keys: object[] }>) {
  const calls: string[] = [];
  let i = 0;
  const fn = (async (url: string) => {
    calls.push(url);
    const body = sets[Math.min(i++, sets.length - 1)];
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as unknown as typeof fetch;
  return { fn, calls };
}

const now = () => 1_800_000_000_000;
const nowSec = 1_800_000_000;
const claims = { sub: 'u1', iss: 'auth-api', aud: 'logistics', iat: nowSec, exp: nowSec + 3600 };

describe('JwksVerifier', () => {
  it('verifies RS256 and EdDSA tokens against the published keys', async () => {
    const { fn, calls } = fakeFetch([{ keys: [jwk(rsa.publicKey, 'r1', 'RS256'), jwk(ed.publicKey, 'e1', 'EdDSA')] }]);
    const verifier = new JwksVerifier({ jwksUrl: 'http://auth/.well-known/jwks.json', fetch: fn, now, issuer: 'auth-api', audience: 'logistics' });
    await expect(verifier.verify(makeToken(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, claims))).resolves.toMatchObject({ sub: 'u1' });
    await expect(verifier.verify(makeToken(ed.privateKey, { alg: 'EdDSA', kid: 'e1' }, claims))).resolves.toMatchObject({ sub: 'u1' });
    expect(calls).toEqual(['http://auth/.well-known/jwks.json']); // cached
  });

  it('accepts ES256 when asked to', async () => {
    const { fn } = fakeFetch([{ keys: [jwk(ec.publicKey, 'c1', 'ES256')] }]);
    const verifier = new JwksVerifier({ jwksUrl: 'x', fetch: fn, now, algorithms: ['ES256'] });
    await expect(verifier.verify(makeToken(ec.privateKey, { alg: 'ES256', kid: 'c1' }, claims))).resolves.toMatchObject({ sub: 'u1' });
  });

  it('refetches on an unknown kid (key rotation), at most once per minimum interval', async () => {
    const { fn, calls } = fakeFetch([{ keys: [jwk(rsa.publicKey, 'r1', 'RS256')] }, { keys: [jwk(rsa2.publicKey, 'r2', 'RS256')] }]);
    let t = now();
    const verifier = new JwksVerifier({ jwksUrl: 'x', fetch: fn, now: () => t, minRefreshIntervalMs: 30_000 });
    await verifier.verify(makeToken(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, claims));
    expect(calls).toHaveLength(1);
    t += 31_000;
    await expect(verifier.verify(makeToken(rsa2.privateKey, { alg: 'RS256', kid: 'r2' }, claims))).resolves.toMatchObject({ sub: 'u1' });
    expect(calls).toHaveLength(2);
    t += 1_000;
    await expect(verifier.verify(makeToken(rsa2.privateKey, { alg: 'RS256', kid: 'zz' }, claims))).rejects.toMatchObject({ code: 'unknown_kid' });
    expect(calls).toHaveLength(2);
  });

  it('refetches when the cache has expired', async () => {
    const { fn, calls } = fakeFetch([{ keys: [jwk(rsa.publicKey, 'r1', 'RS256')] }]);
    let t = now();
    const verifier = new JwksVerifier({ jwksUrl: 'x', fetch: fn, now: () => t, cacheTtlMs: 60_000 });
    const token = makeToken(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, { ...claims, exp: nowSec + 100_000 });
    await verifier.verify(token);
    t += 30_000;
    await verifier.verify(token);
    expect(calls).toHaveLength(1);
    t += 31_000;
    await verifier.verify(token);
    expect(calls).toHaveLength(2);
  });

  it.each([
    ['a bad signature', () => makeToken(rsa2.privateKey, { alg: 'RS256', kid: 'r1' }, claims), 'signature'],
    ['an expired token', () => makeToken(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, { ...claims, exp: nowSec - 1 }), 'expired'],
    ['a future nbf', () => makeToken(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, { ...claims, nbf: nowSec + 60 }), 'not_yet_valid'],
    ['a wrong audience', () => makeToken(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, { ...claims, aud: 'fiscal' }), 'claims'],
    ['a wrong issuer', () => makeToken(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, { ...claims, iss: 'evil' }), 'claims'],
    ['no exp', () => makeToken(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, { ...claims, exp: undefined }), 'claims'],
    ['alg none', () => `${b64({ alg: 'none', kid: 'r1' })}.${b64(claims)}.`, 'algorithm'],
    ['HS256', () => `${b64({ alg: 'HS256', kid: 'r1' })}.${b64(claims)}.c2ln`, 'algorithm'],
    ['no kid', () => makeToken(rsa.privateKey, { alg: 'RS256' }, claims), 'unknown_kid'],
    ['garbage', () => 'not-a-jwt', 'malformed'],
  ])('refuses %s', async (_name, token, code) => {
    const { fn } = fakeFetch([{ keys: [jwk(rsa.publicKey, 'r1', 'RS256')] }]);
    const verifier = new JwksVerifier({ jwksUrl: 'x', fetch: fn, now, issuer: 'auth-api', audience: 'logistics' });
    const err = await verifier.verify(token()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JwtVerificationError);
    expect((err as JwtVerificationError).code).toBe(code);
  });

  it('refuses a key whose type does not match the algorithm', async () => {
    const { fn } = fakeFetch([{ keys: [{ ...ed.publicKey.export({ format: 'jwk' }), kid: 'k' }] }]);
    const verifier = new JwksVerifier({ jwksUrl: 'x', fetch: fn, now });
    await expect(verifier.verify(makeToken(rsa.privateKey, { alg: 'RS256', kid: 'k' }, claims))).rejects.toMatchObject({ code: 'algorithm' });
  });

  it('refuses an ECDSA key on another curve than the algorithm names, and critical header extensions', async () => {
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    // Published without `alg`, so only the curve tells that ES256 does not apply to this key.
    const { fn } = fakeFetch([{ keys: [{ ...p384.publicKey.export({ format: 'jwk' }), kid: 'c384' }, jwk(ec.publicKey, 'c1', 'ES256')] }]);
    const verifier = new JwksVerifier({ jwksUrl: 'x', fetch: fn, now, algorithms: ['ES256'] });
    await expect(verifier.verify(makeToken(p384.privateKey, { alg: 'ES256', kid: 'c384' }, claims))).rejects.toMatchObject({ code: 'algorithm' });
    await expect(verifier.verify(makeToken(ec.privateKey, { alg: 'ES256', kid: 'c1', crit: ['exp'] }, claims))).rejects.toMatchObject({
      code: 'malformed',
    });
  });

  it('reports an unreachable JWKS clearly', async () => {
    const failing = (async () => {
      throw new Error('connect ECONNREFUSED');
    }) as unknown as typeof fetch;
    const verifier = new JwksVerifier({ jwksUrl: 'x', fetch: failing, now });
    await expect(verifier.verify(makeToken(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, claims))).rejects.toMatchObject({
      code: 'jwks',
      message: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('decodes without trusting', () => {
    const token = makeToken(createPrivateKey(rsa.privateKey.export({ format: 'pem', type: 'pkcs8' })), { alg: 'RS256', kid: 'r1' }, claims);
    expect(decodeJwt(token).claims.sub).toBe('u1');
  });
});

describe('JwksVerifier when the issuer goes away', () => {
  it('keeps using the cached keys and retries after the minimum interval', async () => {
    let up = true;
    let calls = 0;
    const flaky = (async () => {
      calls += 1;
      if (!up) throw new Error('ECONNREFUSED');
      return new Response(JSON.stringify({ keys: [jwk(rsa.publicKey, 'r1', 'RS256')] }), { status: 200 });
    }) as unknown as typeof fetch;
    let t = now();
    const verifier = new JwksVerifier({ jwksUrl: 'x', fetch: flaky, now: () => t, cacheTtlMs: 60_000, minRefreshIntervalMs: 10_000 });
    const token = makeToken(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, { ...claims, exp: nowSec + 100_000 });
    await verifier.verify(token);
    up = false;
    t += 61_000;
    await expect(verifier.verify(token)).resolves.toMatchObject({ sub: 'u1' });
    expect(calls).toBe(2);
    t += 5_000;
    await verifier.verify(token);
    expect(calls).toBe(2);
    t += 6_000;
    await verifier.verify(token);
    expect(calls).toBe(3);
  });
});
