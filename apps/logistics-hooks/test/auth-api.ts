// auth-api itself, built and started in a child process on a throwaway database: its logistics realm
// issues the admin tokens and serves the JWKS that logistics-hooks verifies them against. Nothing of
// auth-api's code is imported (module boundaries); the tokens are the ones it issues in production.
import { startBuiltApp } from '@platform/testing';


export interface RunningAuthApi {
  url: string;
  jwksUrl: string;
  issuer: string;
  admin: { email: string; password: string };
  /** An access token of the logistics realm (POST /api/v1/logistics/auth/login). */
  login(email: string, password: string): Promise<string>;
  /** Creates a logistics user with the admin's token (POST /api/v1/logistics/users). */
  createUser(adminToken: string, user: { email: string; password: string; role: string }): Promise<void>;
  /** Logs the session of this access token out (POST /api/v1/logistics/auth/logout). */
  logout(accessToken: string): Promise<void>;
  close(): Promise<void>;
}

/** `env`: more variables for auth-api, e.g. AMQP_URL and EVENTS_* so that its events reach a test broker. */
export async function startAuthApi(extraEnv: Record<string, string> = {}): Promise<RunningAuthApi> {
  const issuer = 'auth-api-test';
  const admin = { email: 'logistics-admin@example.com', password: 'admin-password-123' };
  const { url, close } = await startBuiltApp('auth-api', {
    database: true,
    unset: ['AMQP_URL', 'REDIS_URL', 'AUTH_JWT_PRIVATE_KEY'],
    env: { AUTH_ISSUER: issuer, LOGISTICS_ADMIN_EMAIL: admin.email, LOGISTICS_ADMIN_PASSWORD: admin.password, ...extraEnv },
    timeoutMs: 60_000,
  });

  const login = async (email: string, password: string): Promise<string> => {
    const res = await fetch(`${url}/api/v1/logistics/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    if (!res.ok) throw new Error(`auth-api login answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const createUser = async (adminToken: string, user: { email: string; password: string; role: string }): Promise<void> => {
    const res = await fetch(`${url}/api/v1/logistics/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify(user),
    });
    if (res.status !== 201) throw new Error(`auth-api create user answered ${res.status}: ${await res.text()}`);
  };
  const logout = async (accessToken: string): Promise<void> => {
    const res = await fetch(`${url}/api/v1/logistics/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }, body: '{}' });
    if (res.status !== 204) throw new Error(`auth-api logout answered ${res.status}: ${await res.text()}`);
  };
  return { url, jwksUrl: `${url}/.well-known/jwks.json`, issuer, admin, login, createUser, logout, close };
}
