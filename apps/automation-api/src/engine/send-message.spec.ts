import { aRun, anAccount, anAutomation, anItem, fake } from '../../test/engine-fakes';
import type { EventsService } from '../events/events.service';
import { GraphApiError } from '../graph/graph-api.error';
import type { GraphService } from '../graph/graph.service';
import type { RunsService } from '../runs/runs.service';
import type { ComposeMessage } from './compose-message';
import { DeferredError } from './engine-errors';
import type { InboundService } from './inbound.service';
import type { MachineMessage } from './run-machine';
import { SendMessage } from './send-message';
import type { SendPacing } from './send-pacing';
import type { SendRow, SendsRepository } from './sends.repository';

const dm: MachineMessage = { kind: 'dm', step: 'link', to: 'person', text: 'Here' };
const privateReply: MachineMessage = { kind: 'dm', step: 'opening', to: 'comment', text: 'Want it?', postback: { title: 'Send link', payload: 'run:42:open' } };

function setup(opts: { existing?: SendRow | null; budgetWait?: number; client?: Record<string, jest.Mock>; compose?: unknown; known?: string[] } = {}) {
  const intent = (payload: Record<string, unknown>, kind: SendRow['kind']): SendRow => ({ id: 's1', status: 'intent', kind, payload, platform_id: null, created_at: new Date() });
  const order: string[] = [];
  const sends = fake<SendsRepository>({
    find: jest.fn(async () => opts.existing ?? null),
    recordIntent: jest.fn(async (_a: number, _r: string, _k: string, kind: SendRow['kind'], payload: Record<string, unknown>) => (order.push('intent'), intent(payload, kind))),
    replacePayload: jest.fn(async (_id: string, payload: Record<string, unknown>) => intent(payload, 'private_reply')),
    done: jest.fn(async () => void order.push('done')),
    failed: jest.fn(),
    uncertain: jest.fn(async () => void order.push('uncertain')),
    knownPlatformIds: jest.fn(async () => new Set(opts.known ?? [])),
  });
  const client = {
    sendMessage: jest.fn(async () => (order.push('platform'), { message_id: 'm1' })),
    sendPrivateReply: jest.fn(async () => (order.push('platform'), { message_id: 'm2' })),
    replyToComment: jest.fn(async () => ({ id: 'reply-1' })),
    getComment: jest.fn(async () => ({ id: 'comment-1', replies: { data: [] } })),
    conversationMessages: jest.fn(async () => []),
    ...opts.client,
  };
  const graph = fake<GraphService>({ client: jest.fn(() => client) });
  const pacing = fake<SendPacing>({ privateReplyWaitMs: jest.fn(async () => opts.budgetWait ?? 0) });
  const runs = fake<RunsService>({ setTextFallback: jest.fn(), recordCommentReply: jest.fn(), setPublicReplyId: jest.fn() });
  const events = fake<EventsService>({ record: jest.fn() });
  const inbound = fake<InboundService>({ renewLease: jest.fn(async () => void order.push('lease')) });
  const compose = fake<ComposeMessage>({ execute: jest.fn(async () => opts.compose ?? { text: 'Here' }) });
  return { sends, client, runs, events, inbound, order, send: new SendMessage(sends, runs, events, graph, inbound, compose, pacing) };
}

describe('SendMessage (sends with intents)', () => {
  it('records the intent, renews the lease, calls the platform, then confirms: in that order', async () => {
    const s = setup();
    await expect(s.send.execute(anAccount(), anAutomation(), aRun(), dm, anItem())).resolves.toBe('sent');
    expect(s.order).toEqual(['intent', 'lease', 'platform', 'done']);
    expect(s.sends.recordIntent).toHaveBeenCalledWith(1, '42', 'link:v0', 'dm', { recipient: { id: 'person-1' }, message: { text: 'Here' } });
  });

  it('a step already confirmed is not sent again', async () => {
    const s = setup({ existing: { id: 's1', status: 'done', kind: 'dm', payload: {}, platform_id: 'm1', created_at: new Date() } });
    await expect(s.send.execute(anAccount(), anAutomation(), aRun(), dm, anItem())).resolves.toBe('already');
    expect(s.client.sendMessage).not.toHaveBeenCalled();
  });

  const account = anAccount();
  const fromAccount = { id: account.ig_user_id! };
  const recent = () => new Date(Date.now() - 1000).toISOString();
  const openDm = (status: SendRow['status'] = 'uncertain'): SendRow => ({ id: 's1', status, kind: 'dm', payload: { recipient: { id: 'person-1' }, message: { text: 'Here' } }, platform_id: null, created_at: new Date(Date.now() - 5000) });

  it('an uncertain DM that the conversation shows is confirmed with its id and not sent again', async () => {
    const conversationMessages = jest.fn(async () => [
      { id: 'mid-person', created_time: recent(), from: { id: 'person-1' }, message: 'Here' },
      { id: 'mid-old', created_time: new Date(Date.now() - 3_600_000).toISOString(), from: fromAccount, message: 'Here' },
      { id: 'mid-ours', created_time: recent(), from: fromAccount, message: 'Here' },
    ]);
    const s = setup({ existing: openDm(), client: { conversationMessages } });
    await expect(s.send.execute(account, anAutomation(), aRun(), dm, anItem())).resolves.toBe('already');
    expect(conversationMessages).toHaveBeenCalledWith('person-1');
    expect(s.client.sendMessage).not.toHaveBeenCalled();
    expect(s.sends.done).toHaveBeenCalledWith('s1', 'mid-ours', 'confirmed in the conversation');
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'send_confirmed' }));
  });

  it('a message already confirming another send is not taken as the arrival: the DM goes out again', async () => {
    const conversationMessages = jest.fn(async () => [{ id: 'mid-earlier-run', created_time: recent(), from: fromAccount, message: 'Here' }]);
    const s = setup({ existing: openDm('intent'), client: { conversationMessages }, known: ['mid-earlier-run'] });
    await expect(s.send.execute(account, anAutomation(), aRun(), dm, anItem())).resolves.toBe('sent');
    expect(s.client.sendMessage).toHaveBeenCalledTimes(1);
    expect(s.sends.done).toHaveBeenCalledWith('s1', 'm1');
  });

  it('when the conversation cannot be read (permission), an unconfirmed DM is not sent twice', async () => {
    const conversationMessages = jest.fn(async () => Promise.reject(new GraphApiError('platform', 'Insufficient permission', { code: 10 })));
    const s = setup({ existing: openDm('intent'), client: { conversationMessages } });
    await expect(s.send.execute(account, anAutomation(), aRun(), dm, anItem())).resolves.toBe('already');
    expect(s.client.sendMessage).not.toHaveBeenCalled();
    expect(s.sends.done).toHaveBeenCalledWith('s1', null, 'uncertain: not sent again');
  });

  it('a send whose connection died mid-request is marked uncertain (Event) and retried through the work item', async () => {
    const cut = new GraphApiError('network', 'cannot reach the platform (UND_ERR_SOCKET)', { netCode: 'UND_ERR_SOCKET' });
    const s = setup({ client: { sendMessage: jest.fn(async () => Promise.reject(cut)) } });
    await expect(s.send.execute(account, anAutomation(), aRun(), dm, anItem())).rejects.toBe(cut);
    expect(s.sends.uncertain).toHaveBeenCalledWith('s1', 'cannot reach the platform (UND_ERR_SOCKET)');
    expect(s.sends.failed).not.toHaveBeenCalled();
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'send_uncertain', ref: 'link:v0' }));
  });

  it('a connection that was never made is not uncertain (nothing went out)', async () => {
    const refused = new GraphApiError('network', 'cannot reach the platform (ECONNREFUSED)', { netCode: 'ECONNREFUSED' });
    const s = setup({ client: { sendMessage: jest.fn(async () => Promise.reject(refused)) } });
    await expect(s.send.execute(account, anAutomation(), aRun(), dm, anItem())).rejects.toBe(refused);
    expect(s.sends.uncertain).not.toHaveBeenCalled();
  });

  it('a private reply waits for the shared budget and the pacing before any intent is recorded', async () => {
    const s = setup({ budgetWait: 5_000 });
    await expect(s.send.execute(anAccount(), anAutomation(), aRun(), privateReply, anItem())).rejects.toBeInstanceOf(DeferredError);
    expect(s.sends.recordIntent).not.toHaveBeenCalled();
  });

  it('a second private reply refused by the platform after an unconfirmed attempt means the first went out', async () => {
    const refused = new GraphApiError('platform', 'The comment is invalid for a private reply', { code: 10, subcode: 2534025 });
    const s = setup({
      existing: { id: 's1', status: 'intent', kind: 'private_reply', payload: { recipient: { comment_id: 'comment-1' }, message: { text: 'x' } }, platform_id: null, created_at: new Date() },
      client: { sendPrivateReply: jest.fn(async () => Promise.reject(refused)) },
    });
    await expect(s.send.execute(anAccount(), anAutomation(), aRun(), privateReply, anItem())).resolves.toBe('already');
    expect(s.sends.done).toHaveBeenCalledWith('s1', null, 'confirmed by the platform refusing a second private reply');
    expect(s.runs.recordCommentReply).toHaveBeenCalledWith(1, 'comment-1', 'media-1', 'private_reply', null, '42');
  });

  it('a refused button template goes out once as text under the same intent, and a text reply counts as the tap', async () => {
    const template = { attachment: { type: 'template', payload: { template_type: 'button', text: 'Want it?', buttons: [{ type: 'postback', title: 'Send link', payload: 'run:42:open' }] } } };
    const rejected = new GraphApiError('platform', 'Invalid parameter: template not allowed', { code: 100 });
    const sendPrivateReply = jest.fn().mockRejectedValueOnce(rejected).mockResolvedValueOnce({ message_id: 'm3' });
    const s = setup({ compose: template, client: { sendPrivateReply } });
    await expect(s.send.execute(anAccount(), anAutomation(), aRun(), privateReply, anItem())).resolves.toBe('sent');
    expect(s.sends.replacePayload).toHaveBeenCalledWith('s1', expect.objectContaining({ message: { text: 'Want it?\n\nReply "Send link" to continue.' }, fallback: 'text' }));
    expect(s.runs.setTextFallback).toHaveBeenCalledWith('42');
    expect(sendPrivateReply).toHaveBeenLastCalledWith('comment-1', { text: 'Want it?\n\nReply "Send link" to continue.' }, { waitForBudget: false });
    expect(s.events.record).toHaveBeenCalledWith(1, expect.objectContaining({ kind: 'template_fallback' }));
  });
});
