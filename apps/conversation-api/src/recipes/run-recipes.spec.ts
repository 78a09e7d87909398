import { ApiError } from '@platform/errors';
import type { EventEnvelope } from '@platform/messaging';
import type { AccountsService } from '../accounts/accounts.service';
import type { CannedResponsesService } from '../canned-responses/canned-responses.service';
import { renderTemplate } from '../canned-responses/template';
import type { ContactsService } from '../contacts/contacts.service';
import type { Conversation } from '../conversations/conversation';
import { ConversationEvents, ConversationMessageCreated, withOrigin, type ConversationEventData, type EventOrigin } from '../conversations/conversation-events';
import type { ConversationsService } from '../conversations/conversations.service';
import type { UsersService } from '../users/users.service';
import type { RecipeDefinition } from './recipe-definition';
import type { RecipeWebhookCaller } from './recipe-webhook';
import type { ActionResult, ActiveRecipe, RecipesRepository, RunOutcome } from './recipes.repository';
import { MAX_RECIPE_DEPTH, RunRecipes } from './run-recipes';

const ACCOUNT = 'acc-1';
const conversation = (over: Partial<Conversation> = {}): Conversation => ({
  id: 'conv-1',
  accountId: ACCOUNT,
  displayId: 7,
  channelId: 'chan-1',
  contactId: 'contact-1',
  status: 'open',
  priority: null,
  assigneeId: null,
  teamId: null,
  labels: [],
  snoozedUntil: null,
  waitingSince: null,
  firstReplyCreatedAt: null,
  lastActivityAt: new Date(),
  createdAt: new Date(),
  updatedAt: new Date(),
  contact: { id: 'contact-1', name: 'Kim Lee', email: null, phone: '+1555', },
  ...over,
});

const recipe = (id: string, definition: Partial<RecipeDefinition>): ActiveRecipe => ({
  id,
  name: `Recipe ${id}`,
  version: 1,
  webhookSecret: 'whsec_x',
  definition: { trigger: 'message_created', match: 'all', conditions: [], actions: [], ...definition },
});

/** RunRecipes over fakes of what it spans: which recipes ran, what they did, which origin their changes carried. */
function setup(active: ActiveRecipe[], opts: { claimed?: Set<string>; failReplyWith?: Error } = {}) {
  let current = conversation();
  const runs: Array<{ recipeId: string; depth: number; outcome?: RunOutcome; actions?: ActionResult[]; error?: string | null }> = [];
  const claimed = opts.claimed ?? new Set<string>();
  const recipes = {
    active: jest.fn(async () => active),
    claimRun: jest.fn(async (r: { recipeId: string; eventId: string; depth: number }) => {
      const key = `${r.recipeId}:${r.eventId}`;
      if (claimed.has(key)) return null;
      claimed.add(key);
      runs.push({ recipeId: r.recipeId, depth: r.depth });
      return `run-${runs.length}`;
    }),
    finishRun: jest.fn(async (id: string, outcome: RunOutcome, actions: ActionResult[], error: string | null) => {
      Object.assign(runs[Number(id.slice(4)) - 1], { outcome, actions, error });
    }),
    nextTeamAssignee: jest.fn(async () => 'user-2'),
  };
  const conversations = {
    get: jest.fn(async () => current),
    update: jest.fn(async (_p: unknown, _id: string, dto: { labels?: string[]; priority?: string }) => {
      current = { ...current, ...(dto.labels ? { labels: dto.labels } : {}), ...(dto.priority !== undefined ? { priority: dto.priority as never } : {}) };
      return current;
    }),
    assign: jest.fn(async (_p: unknown, _id: string, dto: { assignee_id?: string; team_id?: string }) => {
      current = { ...current, assigneeId: dto.assignee_id ?? current.assigneeId, teamId: dto.team_id ?? current.teamId };
      return current;
    }),
    setStatus: jest.fn(async (_p: unknown, _id: string, status: string) => ((current = { ...current, status: status as never }), current)),
    sendMessage: jest.fn(async (_p: { name: string }, _id: string, dto: { content: string }) => {
      if (opts.failReplyWith) throw opts.failReplyWith;
      return { id: 'msg-9', content: dto.content };
    }),
  };
  const accounts = { settings: jest.fn(async () => ({ id: ACCOUNT, name: 'Acme', timeZone: 'UTC', businessHours: null, outOfOffice: { enabled: true, message: 'Closed, {{contact.first_name}}' } })) };
  const contacts = { get: jest.fn(async () => ({ id: 'contact-1', name: 'Kim Lee', email: null, phone: '+1555', identifier: null, customAttributes: { plan: 'pro' } })) };
  const users = { find: jest.fn(async (_a: string, id: string) => ({ id, name: id === 'user-2' ? 'Bo' : 'Al', email: `${id}@x.test`, active: true })) };
  const canned = {
    find: jest.fn(async (_a: string, id: string) => (id === 'canned-1' ? { id, content: 'Hi {{contact.first_name}}, {{agent.name}} here' } : null)),
    render: jest.fn((c: { content: string }, v: object) => renderTemplate(c.content, v)),
    renderText: jest.fn((t: string, v: object) => renderTemplate(t, v)),
  };
  const webhooks = { call: jest.fn(async () => 204) };
  const useCase = new RunRecipes(
    recipes as unknown as RecipesRepository,
    conversations as unknown as ConversationsService,
    contacts as unknown as ContactsService,
    accounts as unknown as AccountsService,
    users as unknown as UsersService,
    canned as unknown as CannedResponsesService,
    webhooks as unknown as RecipeWebhookCaller,
  );
  return { useCase, runs, conversations, webhooks, recipes, current: () => current };
}

function event(content: string, origin: EventOrigin | null = null, id = 'evt-1'): EventEnvelope<ConversationEventData> {
  return {
    id,
    type: ConversationMessageCreated.type,
    occurredAt: '2026-10-26T10:00:00.000Z',
    source: 'conversation-api',
    data: { accountId: ACCOUNT, conversationId: 'conv-1', channelId: 'chan-1', message: { id: 'm-1', type: 'incoming', content, contentType: 'text' }, origin },
  };
}

describe('RunRecipes', () => {
  it('runs the recipes whose conditions hold, in order, each action logged, replies rendered with the agent an earlier action set', async () => {
    const t = setup([
      recipe('r1', { conditions: [{ type: 'text_contains', value: 'invoice' }], actions: [{ type: 'assign_team', team_id: 'team-1', cap: 2 }, { type: 'reply', canned_response_id: 'canned-1' }, { type: 'add_label', label: 'billing' }] }),
      recipe('r2', { conditions: [{ type: 'text_contains', value: 'refund' }], actions: [{ type: 'resolve' }] }),
      recipe('r3', { conditions: [{ type: 'label', operator: 'has', label: 'billing' }], actions: [{ type: 'add_label', label: 'billing' }, { type: 'out_of_office_reply' }, { type: 'set_priority', priority: 'high' }] }),
    ]);
    expect(await t.useCase.execute(event('my invoice is wrong'))).toBe(2);
    expect(t.recipes.nextTeamAssignee).toHaveBeenCalledWith('team-1', 2);
    expect(t.conversations.sendMessage.mock.calls.map((c) => c[2].content)).toEqual(['Hi Kim, Bo here', 'Closed, Kim']);
    expect(t.conversations.sendMessage.mock.calls[0][0]).toMatchObject({ name: 'Recipe "Recipe r1"', permissions: ['admin'], userId: '' });
    expect(t.runs).toEqual([
      { recipeId: 'r1', depth: 0, outcome: 'succeeded', error: null, actions: [{ type: 'assign_team', outcome: 'done', detail: 'assigned to user-2' }, { type: 'reply', outcome: 'done', detail: 'message msg-9 queued' }, { type: 'add_label', outcome: 'done' }] },
      // r3 sees the label r1 added (the conversation as earlier recipes left it).
      { recipeId: 'r3', depth: 0, outcome: 'succeeded', error: null, actions: [{ type: 'add_label', outcome: 'skipped', detail: 'already labelled billing' }, { type: 'out_of_office_reply', outcome: 'done', detail: 'message msg-9 queued' }, { type: 'set_priority', outcome: 'done' }] },
    ]);
    expect(t.current()).toMatchObject({ labels: ['billing'], priority: 'high', assigneeId: 'user-2', teamId: 'team-1', status: 'open' });
  });

  it('logs a failed action and still runs the others', async () => {
    const t = setup([recipe('r1', { actions: [{ type: 'reply', canned_response_id: 'canned-1' }, { type: 'resolve' }, { type: 'reply', canned_response_id: 'gone' }] })], { failReplyWith: new ApiError(409, 'X', 'channel unreadable') });
    await t.useCase.execute(event('hello'));
    expect(t.runs[0]).toMatchObject({
      outcome: 'failed',
      error: 'reply: channel unreadable',
      actions: [{ type: 'reply', outcome: 'failed', detail: 'channel unreadable' }, { type: 'resolve', outcome: 'done' }, { type: 'reply', outcome: 'failed', detail: 'the canned response was deleted' }],
    });
    expect(t.current().status).toBe('resolved');
  });

  it('runs a recipe once per event, and never on an event its own action caused or beyond the depth cap', async () => {
    const claimed = new Set<string>();
    const t = setup([recipe('r1', { actions: [{ type: 'resolve' }] }), recipe('r2', { actions: [{ type: 'set_priority', priority: 'low' }] })], { claimed });
    expect(await t.useCase.execute(event('x', null, 'evt-1'))).toBe(2);
    expect(await t.useCase.execute(event('x', null, 'evt-1'))).toBe(0);
    await t.useCase.execute(event('x', { recipeIds: ['r1'], depth: 1 }, 'evt-2'));
    await t.useCase.execute(event('x', { recipeIds: ['a', 'b', 'c'], depth: MAX_RECIPE_DEPTH }, 'evt-3'));
    expect(t.runs.map((r) => [r.recipeId, r.depth, r.outcome])).toEqual([
      ['r1', 0, 'succeeded'],
      ['r2', 0, 'succeeded'],
      ['r1', 1, 'loop_stopped'],
      ['r2', 1, 'succeeded'],
      ['r1', 3, 'loop_stopped'],
      ['r2', 3, 'loop_stopped'],
    ]);
    expect(t.runs[2].error).toBe('the event came from an action of this recipe');
  });

  it('hands the run’s origin to the changes it makes, and a webhook the event, recipe and conversation', async () => {
    const t = setup([recipe('r2', { actions: [{ type: 'webhook', url: 'https://hooks.example.com/x' }, { type: 'resolve' }] })]);
    const origins: Array<EventOrigin | undefined> = [];
    t.conversations.setStatus.mockImplementation(async () => {
      origins.push(probeOrigin());
      return t.current();
    });
    await withOrigin({ recipeIds: ['r1'], depth: 1 }, () => t.useCase.execute(event('x', { recipeIds: ['r1'], depth: 1 })));
    expect(origins).toEqual([{ recipeIds: ['r1', 'r2'], depth: 2 }]);
    expect(t.webhooks.call).toHaveBeenCalledWith('https://hooks.example.com/x', 'whsec_x', { recipeId: 'r2', eventId: 'evt-1' }, expect.objectContaining({ recipe: { id: 'r2', name: 'Recipe r2', version: 1 }, event: expect.objectContaining({ id: 'evt-1' }) }));
  });
});

/** The origin ConversationEvents would stamp on an event raised here. */
function probeOrigin(): EventOrigin | undefined {
  let seen: EventOrigin | undefined;
  // Raising through a fake outbox shows what the event would carry.
  const outbox = { enqueue: async (_e: unknown, data: ConversationEventData) => void (seen = data.origin ?? undefined) };
  void new ConversationEvents(outbox as never, undefined as never, 'conversation-api').raise('status_changed', { id: 'c', accountId: ACCOUNT, channelId: 'ch' });
  return seen;
}
