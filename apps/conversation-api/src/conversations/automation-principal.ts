import type { Principal } from '../access/principal';

const AUTOMATION_ROLE = 'automation';

/**
 * Who acts when a recipe changes a conversation: no user and no session, every conversation of the
 * account in reach (as an administrator's), named in activity lines (`Resolved by Recipe "Triage"`).
 * Its replies have no sender (`sender_type` null), like Chatwoot's automation messages.
 */
export function automationPrincipal(accountId: string, name: string): Principal {
  return { userId: '', accountId, email: '', name, role: AUTOMATION_ROLE, roleId: '', permissions: ['admin'], sessionId: '', expiresAt: 0 };
}

export const isAutomation = (p: Principal): boolean => p.role === AUTOMATION_ROLE && p.userId === '';
