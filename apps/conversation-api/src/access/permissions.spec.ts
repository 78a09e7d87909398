import { BUILT_IN_ROLES, hasPermission, PERMISSION_NAMES, ungrantable } from './permissions';

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

  it.each([
    { granter: ['admin'], wanted: ['admin'], refused: [] },
    { granter: ['admin'], wanted: ['users:manage', 'roles:manage'], refused: [] },
    { granter: ['users:manage'], wanted: ['admin'], refused: ['admin'] },
    { granter: ['users:manage', 'admin:x'], wanted: ['admin'], refused: ['admin'] },
    { granter: ['roles:manage', 'contacts:read'], wanted: ['contacts:read'], refused: [] },
    { granter: ['roles:manage', 'contacts:read'], wanted: ['contacts:read', 'contacts:write', 'admin'], refused: ['contacts:write', 'admin'] },
    { granter: ['users:manage'], wanted: [], refused: [] },
  ])('$granter may not grant $refused of $wanted', ({ granter, wanted, refused }) => {
    expect(ungrantable(granter, wanted)).toEqual(refused);
  });
});
