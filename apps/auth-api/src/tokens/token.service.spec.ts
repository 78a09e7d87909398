import { JwtService } from '@nestjs/jwt';
import { JwksVerifier } from '@platform/auth';
import { generateKeyPairSync, sign } from 'node:crypto';
import { AuthApiConfig } from '../config';
import { JWT_ALGORITHM, SigningKeys } from '../keys/signing-keys';
import { TokenService } from './token.service';

function service(keys: SigningKeys, issuer = 'auth-api'): TokenService {
  const jwt = new JwtService({
    privateKey: keys.privateKeyPem,
    publicKey: keys.publicKeyPem,
    signOptions: { algorithm: JWT_ALGORITHM, keyid: keys.kid },
    verifyOptions: { algorithms: [JWT_ALGORITHM] },
  });
  const config = Object.assign(new AuthApiConfig(), { AUTH_ISSUER: issuer });
  return new TokenService(jwt, config);
}

const keys = new SigningKeys(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
const otherKeys = new SigningKeys(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
const decode = (token: string) => ({
  header: JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()),
  claims: JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()),
});

describe('TokenService', () => {
  const tokens = service(keys);

  it('issues part B tokens: RS256 with kid, sub = email, 24-hour exp, fiscal audience', async () => {
    const { token, expiresIn } = await tokens.signFiscal('ada@example.com');
    const { header, claims } = decode(token);
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT', kid: keys.kid });
    expect(claims).toMatchObject({ sub: 'ada@example.com', aud: 'fiscal', iss: 'auth-api' });
    expect(claims.exp - claims.iat).toBe(86_400);
    expect(expiresIn).toBe(86_400);
    await expect(tokens.verifyFiscal(token)).resolves.toMatchObject({ sub: 'ada@example.com' });
  });

  it('issues logistics tokens with role, realm and session, valid 1 hour', async () => {
    const { token } = await tokens.signLogistics({ id: 'u-1', email: 'd@example.com', role: 'driver' }, 'sess-1');
    const { claims } = decode(token);
    expect(claims).toMatchObject({ sub: 'u-1', email: 'd@example.com', role: 'driver', realm: 'logistics', sid: 'sess-1', aud: 'logistics' });
    expect(claims.exp - claims.iat).toBe(3_600);
    await expect(tokens.verifyLogistics(token)).resolves.toMatchObject({ role: 'driver' });
  });

  it('keeps the realms apart', async () => {
    const fiscal = (await tokens.signFiscal('ada@example.com')).token;
    const logistics = (await tokens.signLogistics({ id: 'u-1', email: 'd@example.com', role: 'admin' }, 's')).token;
    await expect(tokens.verifyLogistics(fiscal)).rejects.toThrow(/audience/);
    await expect(tokens.verifyFiscal(logistics)).rejects.toThrow(/audience/);
  });

  it('refuses tokens signed by another key, of another issuer, or expired', async () => {
    const foreign = (await service(otherKeys).signFiscal('ada@example.com')).token;
    await expect(tokens.verifyFiscal(foreign)).rejects.toThrow(/signature/);
    const otherIssuer = (await service(keys, 'someone-else').signFiscal('ada@example.com')).token;
    await expect(tokens.verifyFiscal(otherIssuer)).rejects.toThrow(/issuer/);

    const now = Math.floor(Date.now() / 1000);
    const header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: keys.kid })).toString('base64url');
    const body = Buffer.from(
      JSON.stringify({ sub: 'ada@example.com', iat: now - 90_000, exp: now - 3_600, aud: 'fiscal', iss: 'auth-api' }),
    ).toString('base64url');
    const expired = `${header}.${body}.${sign('sha256', Buffer.from(`${header}.${body}`), keys.privateKey).toString('base64url')}`;
    await expect(tokens.verifyFiscal(expired)).rejects.toThrow(/expired/);
  });

  it('produces tokens the JWKS verifier accepts with the published key', async () => {
    const { token } = await tokens.signLogistics({ id: 'u-1', email: 'd@example.com', role: 'admin' }, 's');
    const jwks = keys.jwks();
    const fetchJwks = (async () => new Response(JSON.stringify(jwks), { status: 200 })) as unknown as typeof fetch;
    const verifier = new JwksVerifier({ jwksUrl: 'http://auth/.well-known/jwks.json', fetch: fetchJwks, audience: 'logistics', issuer: 'auth-api' });
    await expect(verifier.verify(token)).resolves.toMatchObject({ role: 'admin', realm: 'logistics' });
  });
});
