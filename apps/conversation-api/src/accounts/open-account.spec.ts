import { verifyPassword } from '@platform/auth';
import type { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import type { RolesService } from '../roles/roles.service';
import type { UsersService } from '../users/users.service';
import type { AccountsService } from './accounts.service';
import { OpenAccount } from './open-account';

const ACCOUNT = { id: 'acc-1', name: 'Acme', createdAt: new Date('2026-01-01T00:00:00Z') };

/** OpenAccount over fakes of the services it spans, recording which calls ran inside the transaction. */
function setup(opts: { addUser?: () => Promise<string> } = {}) {
  const calls: string[] = [];
  let inTransaction = false;
  const transactions = {
    transaction: jest.fn(async <T>(fn: () => Promise<T>) => {
      inTransaction = true;
      try {
        return await fn();
      } finally {
        inTransaction = false;
      }
    }),
  };
  const where = (name: string) => calls.push(`${name}${inTransaction ? ' (in transaction)' : ''}`);
  const accounts = { add: jest.fn(async () => (where('accounts.add'), ACCOUNT)) };
  const roles = {
    createBuiltIns: jest.fn(async () => {
      where('roles.createBuiltIns');
      return [
        { id: 'role-admin', name: 'administrator' },
        { id: 'role-agent', name: 'agent' },
      ];
    }),
  };
  const users = { add: jest.fn(async () => (where('users.add'), opts.addUser ? opts.addUser() : 'user-1')) };
  const useCase = new OpenAccount(transactions as unknown as Transactions, accounts as unknown as AccountsService, roles as unknown as RolesService, users as unknown as UsersService);
  return { useCase, calls, transactions, accounts, roles, users };
}

describe('OpenAccount', () => {
  it('creates the account, its built-in roles and its administrator in one transaction', async () => {
    const { useCase, calls, transactions, accounts, roles, users } = setup();
    const created = await useCase.execute('Acme', { email: 'boss@acme.test', name: 'Boss', password: 'boss-password-1' });
    expect(created).toEqual({ account: ACCOUNT, adminId: 'user-1' });
    expect(transactions.transaction).toHaveBeenCalledTimes(1);
    expect(calls).toEqual(['accounts.add (in transaction)', 'roles.createBuiltIns (in transaction)', 'users.add (in transaction)']);
    expect(accounts.add).toHaveBeenCalledWith('Acme');
    expect(roles.createBuiltIns).toHaveBeenCalledWith('acc-1');
    const [accountId, admin] = users.add.mock.calls[0] as unknown as [string, { email: string; name: string; passwordHash: string; roleId: string }];
    expect(accountId).toBe('acc-1');
    expect(admin).toMatchObject({ email: 'boss@acme.test', name: 'Boss', roleId: 'role-admin' });
    // the password is stored hashed, never as given
    expect(admin.passwordHash).not.toContain('boss-password-1');
    expect(await verifyPassword(admin.passwordHash, 'boss-password-1')).toBe(true);
  });

  it('fails with the administrator’s error (409 EMAIL_TAKEN) from inside the transaction, which then rolls back', async () => {
    const taken = new ApiError(409, 'EMAIL_TAKEN', 'A user with the email boss@acme.test exists');
    const { useCase, calls } = setup({ addUser: () => Promise.reject(taken) });
    await expect(useCase.execute('Acme', { email: 'boss@acme.test', name: 'Boss', password: 'boss-password-1' })).rejects.toBe(taken);
    expect(calls).toEqual(['accounts.add (in transaction)', 'roles.createBuiltIns (in transaction)', 'users.add (in transaction)']);
  });
});
