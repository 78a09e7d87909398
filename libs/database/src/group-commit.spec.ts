import { GroupCommit } from './group-commit';

describe('GroupCommit', () => {
  it('writes the first item at once and everything added meanwhile in the next write', async () => {
    const writes: number[][] = [];
    let release!: () => void;
    const commit = new GroupCommit<number>(async (items) => {
      writes.push(items);
      if (writes.length === 1) await new Promise<void>((r) => (release = r));
    });
    const first = commit.add(1);
    const rest = [commit.add(2), commit.add(3), commit.add(4)];
    await Promise.resolve();
    expect(writes).toEqual([[1]]);
    release();
    await Promise.all([first, ...rest]);
    expect(writes).toEqual([[1], [2, 3, 4]]);
  });

  it('resolves an item only after the write that holds it finished', async () => {
    const done: string[] = [];
    let release!: () => void;
    const commit = new GroupCommit<string>(async () => {
      await new Promise<void>((r) => (release = r));
      done.push('written');
    });
    const added = commit.add('a').then(() => done.push('resolved'));
    await new Promise((r) => setImmediate(r));
    expect(done).toEqual([]);
    release();
    await added;
    expect(done).toEqual(['written', 'resolved']);
  });

  it('rejects the items of a failed write and goes on with the next ones', async () => {
    let calls = 0;
    const commit = new GroupCommit<number>(async () => {
      if (++calls === 1) throw new Error('database unreachable');
    });
    const failed = commit.add(1);
    await expect(failed).rejects.toThrow('database unreachable');
    await expect(commit.add(2)).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});

describe('GroupCommit options', () => {
  /** A write that records its items and waits until released. */
  function heldWrites<T>() {
    const writes: T[][] = [];
    const releases: Array<() => void> = [];
    const write = async (items: T[]) => {
      writes.push(items);
      await new Promise<void>((r) => releases.push(r));
      return items.map((i) => `stored ${String(i)}`);
    };
    return { writes, releases, write };
  }

  it('resolves each item with its own result of the write', async () => {
    const commit = new GroupCommit<number, string>(async (items) => items.map((i) => `#${i * 10}`));
    await expect(Promise.all([commit.add(1), commit.add(2)])).resolves.toEqual(['#10', '#20']);
  });

  it('runs up to inFlight writes at once, the next one with what queued meanwhile', async () => {
    const h = heldWrites<number>();
    const commit = new GroupCommit<number, string>(h.write, { inFlight: 2 });
    const added = [1, 2, 3, 4].map((i) => commit.add(i));
    expect(h.writes).toEqual([[1], [2]]);
    expect(commit.waiting).toBe(2);
    h.releases[0]();
    await added[0];
    await new Promise((r) => setImmediate(r));
    expect(h.writes).toEqual([[1], [2], [3, 4]]);
    h.releases[1]();
    h.releases[2]();
    await expect(Promise.all(added)).resolves.toEqual(['stored 1', 'stored 2', 'stored 3', 'stored 4']);
  });

  it('cuts writes at maxBatch of weight, oldest first, and writes a heavier item alone', async () => {
    const writes: string[][] = [];
    const commit = new GroupCommit<string>(async (items) => void writes.push(items), { sameTurn: true, maxBatch: 4, weight: (s) => s.length });
    await Promise.all(['x', 'aa', 'bb', 'c', 'dddddd', 'e'].map((s) => commit.add(s)));
    expect(writes).toEqual([['x', 'aa'], ['bb', 'c'], ['dddddd'], ['e']]);
  });

  it('with sameTurn, gathers what is added in one turn of the event loop into the first write', async () => {
    const writes: number[][] = [];
    const commit = new GroupCommit<number>(async (items) => void writes.push(items), { sameTurn: true });
    const added = [commit.add(1), commit.add(2), commit.add(3)];
    expect(writes).toEqual([]);
    await Promise.all(added);
    expect(writes).toEqual([[1, 2, 3]]);
  });

  it('with retryAlone, a failed write of several is written item by item: only the bad item rejects', async () => {
    const writes: number[][] = [];
    const commit = new GroupCommit<number, number>(
      async (items) => {
        writes.push(items);
        if (items.includes(13)) throw new Error('13 is refused');
        return items.map((i) => i * 2);
      },
      { sameTurn: true, retryAlone: true },
    );
    const results = await Promise.allSettled([commit.add(12), commit.add(13), commit.add(14)]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 24 },
      { status: 'rejected', reason: new Error('13 is refused') },
      { status: 'fulfilled', value: 28 },
    ]);
    expect(writes).toEqual([[12, 13, 14], [12], [13], [14]]);
  });
});
