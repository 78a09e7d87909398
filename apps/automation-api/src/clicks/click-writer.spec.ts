import type { ClickCounter } from './click-counter';
import { CLICK_WRITES_IN_FLIGHT, ClickWriter, type NewClick } from './click-writer';
import type { ClicksRepository } from './clicks.repository';

const click = (token: string): NewClick => ({ token, at: new Date(0), ip: null, userAgent: null });
const target = (token: string): string | null => (token.startsWith('none') ? null : `https://example.com/${token}`);
/** One turn of the event loop: the clicks read in the previous one are written. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A repository whose statements wait until the test releases them; `failWhen` fails a statement holding those tokens. */
function fakeRepo(failWhen: (tokens: string[]) => boolean = () => false) {
  const calls: string[][] = [];
  const waiting: Array<() => void> = [];
  const repo = {
    store: jest.fn(async (clicks: NewClick[]) => {
      const tokens = clicks.map((c) => c.token);
      calls.push(tokens);
      await new Promise<void>((resolve) => waiting.push(resolve));
      if (failWhen(tokens)) throw new Error('statement failed');
      return tokens.map(target);
    }),
  };
  const counter = { noteStored: jest.fn() };
  const releaseAll = async () => {
    await turn();
    while (waiting.length > 0) {
      waiting.splice(0).forEach((release) => release());
      await turn();
    }
  };
  return { writer: new ClickWriter(repo as unknown as ClicksRepository, counter as unknown as ClickCounter), calls, counter, releaseAll };
}

/** Every statement slot taken by a click of its own, each arriving in a turn of its own. */
async function fillSlots(writer: ClickWriter, prefix: string): Promise<Array<Promise<string | null>>> {
  const busy: Array<Promise<string | null>> = [];
  for (let i = 0; i < CLICK_WRITES_IN_FLIGHT; i++) {
    busy.push(writer.click(click(`${prefix}${i}`)));
    await turn();
  }
  return busy;
}

describe('ClickWriter (group commit of click redirects)', () => {
  it('writes a click alone when a statement slot is free, and the clicks arriving meanwhile in one statement, each answered its own link once committed', async () => {
    const f = fakeRepo();
    const first = await fillSlots(f.writer, 'a');
    const later = ['b1', 'none1', 'b2'].map((t) => f.writer.click(click(t)));
    let answered = false;
    void later[0].then(() => (answered = true));
    await turn();
    expect(answered).toBe(false);
    expect(f.calls).toEqual(first.map((_p, i) => [`a${i}`]));
    expect(f.counter.noteStored).not.toHaveBeenCalled();
    await f.releaseAll();
    expect(await Promise.all(first)).toEqual(first.map((_p, i) => `https://example.com/a${i}`));
    expect(await Promise.all(later)).toEqual(['https://example.com/b1', null, 'https://example.com/b2']);
    expect(f.calls).toEqual([...first.map((_p, i) => [`a${i}`]), ['b1', 'none1', 'b2']]);
    // the counter is woken by every statement that stored a click
    expect(f.counter.noteStored).toHaveBeenCalledTimes(CLICK_WRITES_IN_FLIGHT + 1);
  });

  it('writes the clicks read in the same turn of the event loop together, even with a statement slot free', async () => {
    const f = fakeRepo();
    const same = ['t1', 't2', 't3'].map((t) => f.writer.click(click(t)));
    await f.releaseAll();
    expect(await Promise.all(same)).toEqual(['https://example.com/t1', 'https://example.com/t2', 'https://example.com/t3']);
    expect(f.calls).toEqual([['t1', 't2', 't3']]);
    expect(f.counter.noteStored).toHaveBeenCalledTimes(1);
  });

  it('does not wake the counter for a statement that stored nothing', async () => {
    const f = fakeRepo();
    const none = f.writer.click(click('none2'));
    await f.releaseAll();
    expect(await none).toBeNull();
    expect(f.counter.noteStored).not.toHaveBeenCalled();
  });

  it("retries a failed statement click by click: one click's failure does not fail the others", async () => {
    const f = fakeRepo((tokens) => tokens.includes('bad'));
    const busy = await fillSlots(f.writer, 'busy');
    const [good, bad, other] = ['good1', 'bad', 'good2'].map((t) => f.writer.click(click(t)));
    const rejected = expect(bad).rejects.toThrow('statement failed');
    await f.releaseAll();
    await Promise.all(busy);
    await rejected;
    expect(await good).toBe('https://example.com/good1');
    expect(await other).toBe('https://example.com/good2');
    expect(f.calls.slice(CLICK_WRITES_IN_FLIGHT)).toEqual([['good1', 'bad', 'good2'], ['good1'], ['bad'], ['good2']]);
  });
});
