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

  it('limits JSON bodies per route: 1 MB by default, more where a valid body needs it (send 15 MB, templates 6 MB)', async () => {
    const body = (mb: number) => ({ name: 'x', body: 'a'.repeat(mb * 1024 * 1024) });
    const tooLarge = await t.http.post('/contacts').send(body(1.5));
    expect([tooLarge.status, tooLarge.body.error?.code, tooLarge.body.error?.message]).toEqual([413, 'PAYLOAD_TOO_LARGE', 'Request body exceeds the limit of 1mb']);
    // read in full, so the request reaches the key check
    expect((await t.http.post('/v1/send').send(body(1.5))).status).toBe(401);
    expect((await t.http.post('/templates').send(body(1.5))).status).toBe(401);
    expect((await t.http.post('/templates').send(body(7))).status).toBe(413);
    const docs = (await t.http.get('/api/docs-json').expect(200)).body;
    expect(docs.paths['/contacts'].post.responses['413'].description).toContain('larger than 1 MB');
    expect(docs.paths['/v1/send'].post.responses['413'].description).toContain('larger than 15 MB');
  });
});
