import { parseRerankAnswer, rerankEndpoint } from './rerank.client';

describe('rerank client', () => {
  it.each([
    ['https://api.jina.ai/v1', 'https://api.jina.ai/v1/rerank'],
    ['https://api.cohere.com/v2/rerank', 'https://api.cohere.com/v2/rerank'],
    ['http://tei:8080/', 'http://tei:8080/rerank'],
  ])('endpoint of %s is %s', (url, endpoint) => expect(rerankEndpoint(url)).toBe(endpoint));

  it.each<[string, unknown, Array<{ index: number; score: number }> | RegExp]>([
    ['Cohere/Jina shape', { results: [{ index: 1, relevance_score: 0.9 }, { index: 0, relevance_score: 0.2 }] }, [{ index: 1, score: 0.9 }, { index: 0, score: 0.2 }]],
    ['TEI shape, sorted', [{ index: 0, score: 0.1 }, { index: 2, score: 0.7 }], [{ index: 2, score: 0.7 }, { index: 0, score: 0.1 }]],
    ['index out of range', { results: [{ index: 3, relevance_score: 1 }] }, /valid index/],
    ['missing score', [{ index: 0 }], /valid index and score/],
    ['no results', { data: [] }, /without `results`/],
  ])('%s', (_name, body, expected) => {
    if (expected instanceof RegExp) expect(() => parseRerankAnswer(body, 3)).toThrow(expected);
    else expect(parseRerankAnswer(body, 3)).toEqual(expected);
  });
});
