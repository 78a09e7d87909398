import type { EventEnvelope } from '@platform/messaging';
import type { ConversationEventData } from '../conversations/conversation-events';
import { RecipeEventsConsumer } from './recipe-events.consumer';
import type { ActiveRecipe } from './recipes.repository';

const event = { id: 'evt-1', type: 'conversation.message_created', occurredAt: new Date().toISOString(), source: 'conversation-api', data: { accountId: 'acc', conversationId: 'c', channelId: 'ch', origin: null } } as EventEnvelope<ConversationEventData>;

function setup(active: ActiveRecipe[]) {
  const run = { recipesFor: jest.fn(async () => active), execute: jest.fn(async () => active.length) };
  const inbox = { once: jest.fn(async (_consumer: string, _id: string, fn: () => Promise<unknown>) => (await fn(), true)) };
  return { run, inbox, consumer: new RecipeEventsConsumer(run as never, inbox as never) };
}

describe('RecipeEventsConsumer', () => {
  it('is done with an event no published recipe takes at once: no inbox transaction, no mark, no run', async () => {
    const t = setup([]);
    await t.consumer.handle(event);
    expect(t.run.recipesFor).toHaveBeenCalledWith(event);
    expect(t.inbox.once).not.toHaveBeenCalled();
    expect(t.run.execute).not.toHaveBeenCalled();
  });

  it('runs the recipes an event takes inside the inbox (once per event id), with the recipes it found', async () => {
    const active = [{ id: 'r1', name: 'R', version: 1, definition: {}, webhookSecret: 's' }] as unknown as ActiveRecipe[];
    const t = setup(active);
    await t.consumer.handle(event);
    expect(t.inbox.once).toHaveBeenCalledWith('conversation-api.recipes', 'evt-1', expect.any(Function));
    expect(t.run.execute).toHaveBeenCalledWith(event, active);
  });
});
