import { CLICK_WRITES_IN_FLIGHT, ClickWriter, type NewClick } from './click-writer';
import type { ClicksRepository, CountedClick } from './clicks.repository';

const click = (token: string): NewClick => ({ token, at: new Date(0), ip: null, userAgent: null, envelope: { id: `e-${token}`, source: 'test' } });
const counted = (token: string): CountedClick | null => (token.startsWith('none') ? null : { url: `https://example.com/${token}`, published: true });

/** A repository whose statements wait until the test releases them; `failWhen` fails a statement holding those tokens. */
function fakeRepo(failWhen: (tokens: string[]) => boolean = () => false) {
  const calls: Array<{ kind: 'one' | 'batch'; tokens: string[] }> = [];
  const waiting: Array<() => void> = [];
  const run = async (kind: 'one' | 'batch', tokens: string[]) => {
    calls.push({ kind, tokens });
    await new Promise<void>((resolve) => waiting.push(resolve));
    if (failWhen(tokens)) throw new Error('statement failed');
  };
  const repo = {
    clickByToken: jest.fn(async (token: string) => {
      await run('one', [token]);
      return counted(token);
    }),
    clickBatch: jest.fn(async (clicks: NewClick[]) => {
      await run('batch', clicks.map((c) => c.token));
      return clicks.map((c) => counted(c.token));
    }),
  };
  const releaseAll = async () => {
    while (waiting.length > 0) {
      waiting.splice(0).forEach((release) => release());
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { repo: repo as unknown as ClicksRepository, calls, releaseAll };
}

describe('ClickWriter (group commit of click redirects)', () => {
  it('writes a click alone when a statement slot is free, and the clicks arriving meanwhile in one statement, each answered its own link', async () => {
    const f = fakeRepo();
    const writer = new ClickWriter(f.repo);
    const first = Array.from({ length: CLICK_WRITES_IN_FLIGHT }, (_v, i) => writer.click(click(`a${i}`)));
    const later = ['b1', 'none1', 'b2'].map((t) => writer.click(click(t)));
    let answered = false;
    void later[0].then(() => (answered = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    await f.releaseAll();
    expect((await Promise.all(first)).map((c) => c?.url)).toEqual(first.map((_p, i) => `https://example.com/a${i}`));
    expect((await Promise.all(later)).map((c) => c?.url ?? null)).toEqual(['https://example.com/b1', null, 'https://example.com/b2']);
    expect(f.calls).toEqual([...first.map((_p, i) => ({ kind: 'one', tokens: [`a${i}`] })), { kind: 'batch', tokens: ['b1', 'none1', 'b2'] }]);
  });

  it("retries a failed statement click by click: one click's failure does not fail the others", async () => {
    const f = fakeRepo((tokens) => tokens.includes('bad'));
    const writer = new ClickWriter(f.repo);
    const busy = Array.from({ length: CLICK_WRITES_IN_FLIGHT }, (_v, i) => writer.click(click(`busy${i}`)));
    const [good, bad, other] = ['good1', 'bad', 'good2'].map((t) => writer.click(click(t)));
    const rejected = expect(bad).rejects.toThrow('statement failed');
    await f.releaseAll();
    await Promise.all(busy);
    await rejected;
    expect((await good)?.url).toBe('https://example.com/good1');
    expect((await other)?.url).toBe('https://example.com/good2');
    expect(f.calls.slice(CLICK_WRITES_IN_FLIGHT)).toEqual([
      { kind: 'batch', tokens: ['good1', 'bad', 'good2'] },
      { kind: 'one', tokens: ['good1'] },
      { kind: 'one', tokens: ['bad'] },
      { kind: 'one', tokens: ['good2'] },
    ]);
  });
});
