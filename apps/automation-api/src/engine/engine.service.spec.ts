import { anAccount, anItem, fake } from '../../test/engine-fakes';
import type { AccountsService } from '../accounts/accounts.service';
import { EngineService, type PeopleItems } from './engine.service';
import type { FailRun } from './fail-run';
import type { InboundKind } from './inbound';
import type { ProcessComment } from './process-comment';
import type { ProcessFollowUp } from './process-follow-up';
import type { ProcessMessage } from './process-message';
import type { ProcessPostback } from './process-postback';

function setup(account = anAccount()) {
  const useCase = () => ({ execute: jest.fn() });
  const u = { comment: useCase(), message: useCase(), postback: useCase(), followUp: useCase(), fail: useCase(), echo: useCase(), seen: useCase(), readFallback: useCase() };
  const accounts = fake<AccountsService>({ findById: jest.fn(async () => account) });
  const engine = new EngineService(accounts, u.comment as unknown as ProcessComment, u.message as unknown as ProcessMessage, u.postback as unknown as ProcessPostback, u.followUp as unknown as ProcessFollowUp, u.fail as unknown as FailRun, { echo: u.echo, seen: u.seen, readFallback: u.readFallback } as unknown as PeopleItems);
  return { u, engine };
}

describe('EngineService (dispatch of a work item)', () => {
  it.each<[InboundKind, 'comment' | 'message' | 'postback' | 'followUp' | 'echo' | 'seen' | 'readFallback']>([
    ['echo', 'echo'],
    ['seen', 'seen'],
    ['read_fallback', 'readFallback'],
    ['comment', 'comment'],
    ['backfill', 'comment'],
    ['message', 'message'],
    ['story_reply', 'message'],
    ['postback', 'postback'],
    ['follow_up', 'followUp'],
  ])('%s → its use case', async (kind, useCase) => {
    const s = setup();
    await s.engine.process(anItem({ kind }));
    expect(s.u[useCase].execute).toHaveBeenCalledWith(expect.objectContaining({ kind }), expect.objectContaining({ id: 1 }));
  });

  it('an item of a deleted account is dropped; fail goes to FailRun', async () => {
    const s = setup(null as never);
    await s.engine.process(anItem());
    expect(s.u.comment.execute).not.toHaveBeenCalled();
    const err = new Error('x');
    await s.engine.fail(anItem(), err);
    expect(s.u.fail.execute).toHaveBeenCalledWith(expect.anything(), err);
  });
});
