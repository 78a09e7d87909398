// Under `npm start`, automation-api needs an email-api project to send captured emails to
// (ARCHITECTURE.md: EMAIL_PUBLIC_KEY). email-api has no first-project variable — its users sign up
// through its API — so the development stack does exactly that, through the same public endpoints a
// newcomer would use: a development user, one project named "Development", and its two keys.
// Idempotent across restarts: the user logs in again, the project is found by name, and a secret
// key that no longer works (rotated from the dashboard) is replaced by rotating once more.

export const DEV_PROJECT_NAME = 'Development';

export interface DevEmailLogin {
  email: string;
  password: string;
  /** the secret key kept from an earlier start, if any */
  secretKey?: string;
}

export interface DevEmailProject {
  projectId: string;
  publicKey: string;
  secretKey: string;
}

interface ProjectView {
  id: string;
  name: string;
  publicKey: string;
  secretKey?: string;
}

class EmailApiCallError extends Error {
  constructor(
    readonly status: number,
    what: string,
    body: string,
  ) {
    super(`email-api ${what} answered ${status}: ${body.slice(0, 300)}`);
  }
}

/** The dashboard answers in the spec's envelope `{success, data}`; older shapes are taken as they are. */
function unwrap<T>(body: unknown): T {
  if (body && typeof body === 'object' && 'success' in body && 'data' in body) return (body as { data: T }).data;
  return body as T;
}

async function call<T>(baseUrl: string, what: string, init: RequestInit & { path: string }): Promise<{ status: number; body: T; cookie?: string }> {
  const res = await fetch(`${baseUrl}${init.path}`, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
  const text = await res.text();
  if (!res.ok) throw new EmailApiCallError(res.status, what, text);
  const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  return { status: res.status, body: unwrap<T>(text ? JSON.parse(text) : undefined), cookie: cookie || undefined };
}

/**
 * Logs the development user in, signing it up on the first start (no secret key kept yet) or when
 * the database was wiped since. Returns the session cookie.
 */
async function session(baseUrl: string, login: DevEmailLogin): Promise<string> {
  const credentials = JSON.stringify({ email: login.email, password: login.password });
  const signup = () =>
    call(baseUrl, 'signup', { path: '/auth/signup', method: 'POST', body: JSON.stringify({ email: login.email, password: login.password, name: 'Developer' }) });
  const loginCall = () => call(baseUrl, 'login', { path: '/auth/login', method: 'POST', body: credentials });
  const [first, fallback, fallbackOn] = login.secretKey ? [loginCall, signup, 401] : [signup, loginCall, 409];
  let answer: { cookie?: string };
  try {
    answer = await first();
  } catch (err) {
    if (!(err instanceof EmailApiCallError) || err.status !== fallbackOn) throw err;
    answer = await fallback();
  }
  if (!answer.cookie) throw new Error('email-api set no session cookie');
  return answer.cookie;
}

async function secretKeyWorks(baseUrl: string, secretKey: string): Promise<boolean> {
  const res = await fetch(`${baseUrl}/contacts?limit=1`, { headers: { authorization: `Bearer ${secretKey}` } });
  await res.arrayBuffer();
  return res.ok;
}

/** Ensures the development user and its "Development" project; returns the project's keys. */
export async function ensureDevEmailProject(baseUrl: string, login: DevEmailLogin): Promise<DevEmailProject> {
  const cookie = await session(baseUrl, login);
  const headers = { cookie };
  const { body: projects } = await call<ProjectView[]>(baseUrl, 'project list', { path: '/users/@me/projects', headers });
  const existing = projects.find((p) => p.name === DEV_PROJECT_NAME);
  if (!existing) {
    const { body: created } = await call<ProjectView>(baseUrl, 'project creation', {
      path: '/users/@me/projects',
      method: 'POST',
      headers,
      body: JSON.stringify({ name: DEV_PROJECT_NAME }),
    });
    return { projectId: created.id, publicKey: created.publicKey, secretKey: created.secretKey! };
  }
  if (login.secretKey && (await secretKeyWorks(baseUrl, login.secretKey))) {
    return { projectId: existing.id, publicKey: existing.publicKey, secretKey: login.secretKey };
  }
  const { body: rotated } = await call<{ publicKey: string; secretKey: string }>(baseUrl, 'key rotation', {
    path: `/users/@me/projects/${existing.id}/regenerate-keys`,
    method: 'POST',
    headers,
  });
  return { projectId: existing.id, publicKey: rotated.publicKey, secretKey: rotated.secretKey };
}
