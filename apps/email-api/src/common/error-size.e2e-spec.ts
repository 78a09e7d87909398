import { startEmailApi, type EmailTestApp } from '../../test/helpers';

describe('error bodies stay small (envelope shape, e2e)', () => {
  let t: EmailTestApp;

  beforeAll(async () => {
    t = await startEmailApi();
  });
  afterAll(() => t?.close());

  it('answers a body of 5,000 unknown keys with 422 listing 50 field errors and counting the rest', async () => {
    const body = { email: 'someone@example.com', password: 'long enough pw', ...Object.fromEntries(Array.from({ length: 5000 }, (_v, i) => [`unknown_key_${i}`, i])) };
    const res = await t.http.post('/auth/login').send(body);
    expect(res.status).toBe(422);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', statusCode: 422, message: 'Validation failed (4950 more problems not listed)' });
    expect(res.body.error.errors).toHaveLength(50);
    expect(res.body.error.errors[0]).toEqual({ field: 'unknown_key_0', message: 'property unknown_key_0 should not exist', code: 'unrecognized_key' });
    expect(res.text.length).toBeLessThan(10_000);
  });
});
