import { ActiveRecipeAccounts } from './active-recipe-accounts';
import type { RecipesRepository } from './recipes.repository';

/** A repository whose reads answer when the test settles them, with what is published at that time of reading. */
function fakeRecipes() {
  const reads: Array<{ accountId: string; published: boolean; settle: () => void; fail: (err: Error) => void }> = [];
  const published = new Set<string>();
  const repository = {
    hasActive: (accountId: string) =>
      new Promise<boolean>((resolve, reject) => {
        const seen = published.has(accountId); // the read's snapshot: what was committed when it began
        reads.push({ accountId, published: seen, settle: () => resolve(seen), fail: reject });
      }),
  } as unknown as RecipesRepository;
  return { repository, reads, published };
}

describe('ActiveRecipeAccounts', () => {
  it('answers a question asked during a read from a read begun after it, shared by everyone who asked meanwhile', async () => {
    const { repository, reads, published } = fakeRecipes();
    const accounts = new ActiveRecipeAccounts(repository);
    const first = accounts.has('a');
    expect(reads).toHaveLength(1);
    // A recipe is published while the first read is in flight; two events arrive after it.
    published.add('a');
    const second = accounts.has('a');
    const third = accounts.has('a');
    expect(reads).toHaveLength(1);
    reads[0].settle();
    await expect(first).resolves.toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toHaveLength(2);
    reads[1].settle();
    await expect(second).resolves.toBe(true);
    await expect(third).resolves.toBe(true);
    // Nothing is kept: the next question reads again.
    const fourth = accounts.has('a');
    expect(reads).toHaveLength(3);
    reads[2].settle();
    await expect(fourth).resolves.toBe(true);
  });

  it('reads each account on its own and recovers from a failed read', async () => {
    const { repository, reads, published } = fakeRecipes();
    const accounts = new ActiveRecipeAccounts(repository);
    published.add('b');
    const a = accounts.has('a');
    const b = accounts.has('b');
    expect(reads.map((r) => r.accountId)).toEqual(['a', 'b']);
    reads[0].fail(new Error('connection lost'));
    reads[1].settle();
    await expect(a).rejects.toThrow('connection lost');
    await expect(b).resolves.toBe(true);
    const again = accounts.has('a');
    expect(reads).toHaveLength(3);
    reads[2].settle();
    await expect(again).resolves.toBe(false);
  });
});
