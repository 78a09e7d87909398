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
