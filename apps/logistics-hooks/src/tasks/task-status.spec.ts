import { allowedMoves, canMoveTask, isTaskStatus } from './task-status';
import { STATUSES } from './task-values';

describe('task status moves', () => {
  it.each([
    ['PENDING', 'PENDING', true],
    ['PENDING', 'IN_PROGRESS', true],
    ['PENDING', 'DONE', true],
    ['IN_PROGRESS', 'PENDING', false],
    ['IN_PROGRESS', 'IN_PROGRESS', true],
    ['IN_PROGRESS', 'DONE', true],
    ['DONE', 'PENDING', false],
    ['DONE', 'IN_PROGRESS', false],
    ['DONE', 'DONE', true],
  ] as const)('%s → %s: %p', (from, to, allowed) => {
    expect(canMoveTask(from, to)).toBe(allowed);
    expect(allowedMoves(from).includes(to)).toBe(allowed);
  });

  it('knows every status of the spec and nothing else', () => {
    for (const s of STATUSES) expect(isTaskStatus(s)).toBe(true);
    for (const s of ['pending', 'CLOSED', '', null, 1]) expect(isTaskStatus(s)).toBe(false);
  });
});
