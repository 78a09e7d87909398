import { BUILT_IN_ROLES, hasPermission, PERMISSION_NAMES } from './permissions';

describe('permissions', () => {
  it('admin covers every permission', () => {
    for (const p of PERMISSION_NAMES) expect(hasPermission(BUILT_IN_ROLES.administrator.permissions, p)).toBe(true);
  });

  it('an agent handles and assigns conversations and contacts but manages nothing', () => {
    const agent = BUILT_IN_ROLES.agent.permissions;
    expect(hasPermission(agent, 'conversations:write')).toBe(true);
    expect(hasPermission(agent, 'contacts:write')).toBe(true);
    expect(hasPermission(agent, 'conversations:assign')).toBe(true);
    for (const p of ['attributes:manage', 'channels:manage', 'users:manage', 'teams:manage', 'roles:manage', 'recipes:publish', 'admin'] as const) {
      expect(hasPermission(agent, p)).toBe(false);
    }
  });
});
