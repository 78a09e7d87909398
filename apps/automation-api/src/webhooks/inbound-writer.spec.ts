import type { NewInbound } from '../engine/inbound';
import type { InboundService } from '../engine/inbound.service';
import { INBOUND_WRITES_IN_FLIGHT, INBOUND_WRITE_MAX_ITEMS, InboundWriter } from './inbound-writer';

const item = (key: string): NewInbound => ({ account_id: 1, dedup_key: key, kind: 'comment', subject: '1:u', payload: {} });
/** One turn of the event loop: the deliveries read in the previous one are written. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A repository whose inserts wait until the test releases them; keys already stored stay stored. */
function fakeRepo(failWhen: (keys: string[]) => boolean = () => false) {
  const stored = new Set<string>();
  const calls: string[][] = [];
  const waiting: Array<() => void> = [];
  const repo = {
    insert: jest.fn(async (items: NewInbound[]) => {
      const keys = items.map((i) => i.dedup_key);
      calls.push(keys);
      await new Promise<void>((resolve) => waiting.push(resolve));
      if (failWhen(keys)) throw new Error('insert failed');
      return keys.filter((k) => !stored.has(k) && Boolean(stored.add(k)));
    }),
  };
  const releaseAll = async () => {
    await turn();
    while (waiting.length > 0) {
      waiting.splice(0).forEach((release) => release());
      await turn();
    }
  };
  return { repo: repo as unknown as InboundService, calls, releaseAll, inFlight: () => waiting.length };
}

/** Every statement slot taken by a delivery of its own, each arriving in a turn of its own. */
async function fillSlots(writer: InboundWriter): Promise<Array<Promise<number>>> {
  const busy: Array<Promise<number>> = [];
  for (let i = 0; i < INBOUND_WRITES_IN_FLIGHT; i++) {
    busy.push(writer.store([item(`busy${i}`)]));
    await turn();
  }
  return busy;
}

describe('InboundWriter (group commit of webhook items)', () => {
  it('writes a delivery at once when nothing is in flight, and the ones arriving meanwhile together', async () => {
    const f = fakeRepo();
    const writer = new InboundWriter(f.repo);
    const first = await fillSlots(writer);
    const later = [writer.store([item('b1'), item('b2')]), writer.store([item('c1')]), writer.store([item('d1')])];
    await turn();
    expect(f.calls).toEqual(first.map((_p, i) => [`busy${i}`]));
    await f.releaseAll();
    expect(await Promise.all(first)).toEqual(first.map(() => 1));
    expect(await Promise.all(later)).toEqual([2, 1, 1]);
    expect(f.calls.slice(INBOUND_WRITES_IN_FLIGHT)).toEqual([['b1', 'b2', 'c1', 'd1']]);
  });

  it('writes the deliveries read in the same turn of the event loop together, even with a statement slot free', async () => {
    const f = fakeRepo();
    const writer = new InboundWriter(f.repo);
    const same = [writer.store([item('t1')]), writer.store([item('t2'), item('t3')])];
    await f.releaseAll();
    expect(await Promise.all(same)).toEqual([1, 2]);
    expect(f.calls).toEqual([['t1', 't2', 't3']]);
  });

  it('answers only after the statement holding the items finished', async () => {
    const f = fakeRepo();
    const writer = new InboundWriter(f.repo);
    let answered = false;
    const done = writer.store([item('x')]).then(() => (answered = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    await f.releaseAll();
    await done;
    expect(answered).toBe(true);
  });

  it('counts a key stored once for the first delivery holding it (identical deliveries written together)', async () => {
    const f = fakeRepo();
    const writer = new InboundWriter(f.repo);
    const busy = await fillSlots(writer);
    const copies = Array.from({ length: 5 }, () => writer.store([item('same')]));
    const redelivery = writer.store([item('busy0')]);
    await f.releaseAll();
    await Promise.all(busy);
    expect(await Promise.all(copies)).toEqual([1, 0, 0, 0, 0]);
    expect(await redelivery).toBe(0);
  });

  it('keeps a statement under the item bound, but never splits one delivery', async () => {
    const f = fakeRepo();
    const writer = new InboundWriter(f.repo);
    const busy = await fillSlots(writer);
    const big = Array.from({ length: INBOUND_WRITE_MAX_ITEMS - 1 }, (_v, i) => item(`big${i}`));
    const huge = Array.from({ length: INBOUND_WRITE_MAX_ITEMS + 10 }, (_v, i) => item(`huge${i}`));
    const waiting = [writer.store(big), writer.store([item('s1'), item('s2')]), writer.store(huge)];
    await f.releaseAll();
    await Promise.all([...busy, ...waiting]);
    expect(f.calls.slice(INBOUND_WRITES_IN_FLIGHT).map((keys) => keys.length)).toEqual([INBOUND_WRITE_MAX_ITEMS - 1, 2, INBOUND_WRITE_MAX_ITEMS + 10]);
  });

  it("retries a failed statement per delivery: one delivery's failure does not fail the others", async () => {
    const f = fakeRepo((keys) => keys.includes('bad'));
    const writer = new InboundWriter(f.repo);
    const busy = await fillSlots(writer);
    const good = writer.store([item('good1')]);
    const bad = writer.store([item('bad'), item('with-bad')]);
    const other = writer.store([item('good2')]);
    const rejected = expect(bad).rejects.toThrow('insert failed');
    await f.releaseAll();
    await Promise.all(busy);
    await rejected;
    expect(await good).toBe(1);
    expect(await other).toBe(1);
    expect(f.calls.slice(INBOUND_WRITES_IN_FLIGHT)).toEqual([['good1', 'bad', 'with-bad', 'good2'], ['good1'], ['bad', 'with-bad'], ['good2']]);
  });

  it('stores nothing for a delivery without items', async () => {
    const f = fakeRepo();
    await expect(new InboundWriter(f.repo).store([])).resolves.toBe(0);
    expect(f.calls).toEqual([]);
  });
});
