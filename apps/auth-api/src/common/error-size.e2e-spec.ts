import { createTestApp, type TestApp } from '@platform/testing';
import type { AuthApiConfig } from '../config';
import { authApiService } from '../service';

describe('error bodies stay small ({detail} shape, e2e)', () => {
  let t: TestApp<AuthApiConfig>;

  beforeAll(async () => {
    t = await createTestApp(authApiService);
  });
  afterAll(() => t?.close());

  it('answers a body of 5,000 unknown keys with 422 naming the first 50 and counting the rest', async () => {
    const body = { refresh_token: 'lrt_x', ...Object.fromEntries(Array.from({ length: 5000 }, (_v, i) => [`unknown_key_${i}`, i])) };
    const res = await t.http.post('/api/v1/logistics/auth/refresh').send(body);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body)).toEqual(['detail']);
    expect(res.body.detail).toContain('property unknown_key_0 should not exist');
    expect(res.body.detail).not.toContain('unknown_key_50 ');
    expect(res.body.detail).toMatch(/; 4950 more problems not listed$/);
    expect(res.text.length).toBeLessThan(5_000);
  });
});
