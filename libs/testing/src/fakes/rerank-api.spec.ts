import { fakeRerankScore, startFakeRerankApi, type FakeRerankApi } from './rerank-api';

describe('fake rerank API', () => {
  let fake: FakeRerankApi;
  beforeAll(async () => (fake = await startFakeRerankApi()));
  afterAll(() => fake.close());

  const post = (path: string, body: unknown) =>
    fetch(`${fake.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('answers the Cohere/Jina shape best first, top_n of them', async () => {
    const res = await post('/v1/rerank', { model: 'm', query: 'red fox', documents: ['a blue bird', 'the red fox', 'red paint'], top_n: 2 });
    expect(await res.json()).toEqual({ model: 'm', results: [{ index: 1, relevance_score: 1 }, { index: 2, relevance_score: 0.5 }] });
  });

  it('answers the text-embeddings-inference shape', async () => {
    const res = await post('/rerank', { query: 'red fox', texts: ['red paint', 'the red fox'] });
    expect(await res.json()).toEqual([{ index: 1, score: 1 }, { index: 0, score: 0.5 }]);
  });

  it('refuses a body without query or documents, and fails on demand', async () => {
    expect((await post('/v1/rerank', { query: 1 })).status).toBe(422);
    fake.mode = 'fail';
    expect((await post('/v1/rerank', { query: 'x', documents: ['x'] })).status).toBe(503);
    fake.mode = 'ok';
    expect(fakeRerankScore('', 'x')).toBe(0);
  });
});
