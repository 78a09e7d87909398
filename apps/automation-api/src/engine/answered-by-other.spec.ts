import { aRun, anAccount, fake } from '../../test/engine-fakes';
import type { GraphService } from '../graph/graph.service';
import type { RunsService } from '../runs/runs.service';
import { AnsweredByOther } from './answered-by-other';
import type { SendsRepository } from './sends.repository';

const ACCOUNT = '1780000000000001';

function setup(replies: Array<{ id: string; from?: { id: string; username?: string }; text?: string; timestamp?: string }>, opts: { sent?: boolean; own?: string[] } = {}) {
  const client = { getComment: jest.fn(async () => ({ id: 'c', replies: { data: replies } })) };
  const graph = fake<GraphService>({ client: jest.fn(() => client) });
  const runs = fake<RunsService>({ ownReplyIds: jest.fn(async () => new Set(opts.own ?? [])), ownReplyIdsInThread: jest.fn(async () => new Set(opts.own ?? [])) });
  const sends = fake<SendsRepository>({ any: jest.fn(async () => opts.sent ?? false) });
  return { client, runs, check: new AnsweredByOther(graph, runs, sends) };
}

describe('AnsweredByOther (skip_if_answered)', () => {
  it('a top-level comment with a reply from the account that the service did not post is answered', async () => {
    const s = setup([{ id: 'r1', from: { id: ACCOUNT } }]);
    await expect(s.check.execute(anAccount(), aRun(), ACCOUNT)).resolves.toBe(true);
    expect(s.client.getComment).toHaveBeenCalledWith('comment-1');
  });

  it('the service’s own reply, or a reply from someone else, does not count', async () => {
    await expect(setup([{ id: 'r1', from: { id: ACCOUNT } }], { own: ['r1'] }).check.execute(anAccount(), aRun(), ACCOUNT)).resolves.toBe(false);
    await expect(setup([{ id: 'r2', from: { id: 'someone' } }]).check.execute(anAccount(), aRun(), ACCOUNT)).resolves.toBe(false);
  });

  it('once the run sent something it never asks the platform', async () => {
    const s = setup([{ id: 'r1', from: { id: ACCOUNT } }], { sent: true });
    await expect(s.check.execute(anAccount(), aRun(), ACCOUNT)).resolves.toBe(false);
    expect(s.client.getComment).not.toHaveBeenCalled();
  });

  it('a reply counts as answered by a newer reply in the thread that @mentions its author', async () => {
    const run = aRun({ comment_id: 'reply-1', parent_comment_id: 'top-1', username: 'jane' });
    const trigger = { id: 'reply-1', from: { id: 'person-1', username: 'jane' }, timestamp: '2026-01-10T10:00:00+0000' };
    const answer = { id: 'r9', from: { id: ACCOUNT }, text: '@jane sent!', timestamp: '2026-01-10T10:05:00+0000' };
    const older = { ...answer, timestamp: '2026-01-10T09:00:00+0000' };
    const other = { ...answer, text: '@bob sent!' };
    const s = setup([trigger, answer]);
    await expect(s.check.execute(anAccount(), run, ACCOUNT)).resolves.toBe(true);
    expect(s.client.getComment).toHaveBeenCalledWith('top-1');
    expect(s.runs.ownReplyIdsInThread).toHaveBeenCalledWith(1, 'top-1');
    await expect(setup([trigger, older]).check.execute(anAccount(), run, ACCOUNT)).resolves.toBe(false);
    await expect(setup([trigger, other]).check.execute(anAccount(), run, ACCOUNT)).resolves.toBe(false);
  });
});
