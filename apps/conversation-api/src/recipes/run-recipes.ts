import { Injectable, Logger } from '@nestjs/common';
import { GroupCommit } from '@platform/database';
import { ApiError } from '@platform/errors';
import type { EventEnvelope } from '@platform/messaging';
import { AccountsService, type AccountSettings } from '../accounts/accounts.service';
import { CannedResponsesService, type TemplateValues } from '../canned-responses/canned-responses.service';
import { ContactsService, type Contact } from '../contacts/contacts.service';
import { automationPrincipal } from '../conversations/automation-principal';
import type { Conversation } from '../conversations/conversation';
import { triggerOf, withOrigin, type ConversationEventData, type EventOrigin } from '../conversations/conversation-events';
import { ConversationsService } from '../conversations/conversations.service';
import { conversationView, type AssignDto, type SendReplyDto, type UpdateConversationDto } from '../conversations/dto/conversation.dto';
import { UsersService } from '../users/users.service';
import { conditionsHold, type ConditionContext } from './recipe-conditions';
import type { Action, Trigger } from './recipe-definition';
import { RecipeWebhookCaller } from './recipe-webhook';
import { RecipesRepository, type ActionResult, type ActiveRecipe } from './recipes.repository';

/** A chain of this many recipe runs (A's action triggers B, whose action triggers C, …) ends there. */
export const MAX_RECIPE_DEPTH = 3;

interface RunScope {
  event: EventEnvelope<ConversationEventData>;
  recipe: ActiveRecipe;
  conversation: Conversation;
  contact: Contact;
  settings: AccountSettings;
}

/**
 * Runs the account's published, enabled recipes on one conversation event, inside the inbox's
 * transaction (RecipeEventsConsumer): each recipe whose conditions hold runs its actions in order
 * and logs the run with each action's outcome, all committed together with the inbox mark, so a
 * run happens exactly once whichever replica takes the event, and a crash mid-run leaves nothing
 * (the redelivery runs it). Spans recipes, conversations, contacts, users, accounts and canned responses.
 *
 * Loops: what a run does raises events carrying its origin (the chain of recipes and its length);
 * a recipe never runs on an event its own action caused, and no recipe runs on an event at the end
 * of a chain of MAX_RECIPE_DEPTH runs: such runs are logged as `loop_stopped`.
 */
@Injectable()
export class RunRecipes {
  private readonly logger = new Logger(RunRecipes.name);
  /** The recipe lookups of events handled at the same time, in one query (a read: grouped as GroupCommit groups writes). */
  private readonly lookups = new GroupCommit<{ accountId: string; trigger: Trigger }, ActiveRecipe[]>((keys) => this.recipes.activeForMany(keys), { inFlight: 2, maxBatch: 500, sameTurn: true, retryAlone: true });

  constructor(
    private readonly recipes: RecipesRepository,
    private readonly conversations: ConversationsService,
    private readonly contacts: ContactsService,
    private readonly accounts: AccountsService,
    private readonly users: UsersService,
    private readonly canned: CannedResponsesService,
    private readonly webhooks: RecipeWebhookCaller,
  ) {}

  /**
   * The account's published, enabled recipes the event triggers (none: the event needs no run, nor a
   * transaction). The lookups of events handled at the same time go together in one query.
   */
  recipesFor(event: EventEnvelope<ConversationEventData>): Promise<ActiveRecipe[]> {
    const trigger = triggerOf(event.type);
    return trigger ? this.lookups.add({ accountId: event.data.accountId, trigger }) : Promise.resolve([]);
  }

  /** The number of runs logged for the event; `active`: its recipes, when `recipesFor` was asked already. */
  async execute(event: EventEnvelope<ConversationEventData>, active?: ActiveRecipe[]): Promise<number> {
    const trigger = triggerOf(event.type);
    if (!trigger) return 0;
    const d = event.data;
    active ??= await this.recipes.active(d.accountId, trigger);
    if (!active.length) return 0;
    const reader = automationPrincipal(d.accountId, 'Recipes');
    let conversation = await this.conversations.get(reader, d.conversationId).catch(notFoundAsNull);
    if (!conversation) return 0;
    const settings = await this.accounts.settings(d.accountId);
    const contact = await this.contacts.get(d.accountId, conversation.contactId);
    const contactFields = { ...contact.customAttributes, name: contact.name, email: contact.email, phone: contact.phone, identifier: contact.identifier };
    const at = new Date(event.occurredAt);
    let runs = 0;
    for (const recipe of active) {
      const ctx: ConditionContext = {
        text: d.message?.content ?? null,
        messageType: d.message?.type ?? null,
        channelId: conversation.channelId,
        contact: contactFields,
        labels: conversation.labels,
        priority: conversation.priority,
        status: conversation.status,
        at: Number.isNaN(at.getTime()) ? new Date() : at,
        timeZone: settings.timeZone,
        businessHours: settings.businessHours,
      };
      if (!conditionsHold(recipe.definition, ctx)) continue;
      const origin = d.origin;
      const runId = await this.recipes.claimRun({ accountId: d.accountId, recipeId: recipe.id, version: recipe.version, eventId: event.id, trigger, conversationId: conversation.id, depth: origin?.depth ?? 0 });
      if (!runId) continue;
      runs++;
      const loop = origin?.recipeIds.includes(recipe.id)
        ? 'the event came from an action of this recipe'
        : origin && origin.depth >= MAX_RECIPE_DEPTH
          ? `the event came at the end of a chain of ${origin.depth} recipe runs (at most ${MAX_RECIPE_DEPTH})`
          : null;
      if (loop) {
        this.logger.warn(`recipe ${recipe.id} not run on ${event.type} ${event.id}: ${loop}`);
        await this.recipes.finishRun(runId, 'loop_stopped', [], loop);
        continue;
      }
      const next: EventOrigin = { recipeIds: [...(origin?.recipeIds ?? []), recipe.id], depth: (origin?.depth ?? 0) + 1 };
      const results = await withOrigin(next, () => this.act({ event, recipe, conversation: conversation!, contact, settings }));
      const failed = results.find((r) => r.outcome === 'failed');
      await this.recipes.finishRun(runId, failed ? 'failed' : 'succeeded', results, failed ? `${failed.type}: ${failed.detail}` : null);
      // The next recipe sees the conversation as this one left it.
      conversation = (await this.conversations.get(reader, d.conversationId).catch(notFoundAsNull)) ?? conversation;
    }
    return runs;
  }

  private async act(scope: RunScope): Promise<ActionResult[]> {
    const results: ActionResult[] = [];
    for (const action of scope.recipe.definition.actions) {
      try {
        const detail = await this.perform(action, scope);
        results.push(detail === null ? { type: action.type, outcome: 'done' } : typeof detail === 'string' ? { type: action.type, outcome: 'done', detail } : { type: action.type, outcome: 'skipped', detail: detail.skipped });
      } catch (err) {
        results.push({ type: action.type, outcome: 'failed', detail: (err as Error).message.slice(0, 500) });
      }
    }
    return results;
  }

  /** The variables of a reply: the contact, the conversation's agent as earlier actions left it, the account. */
  private async values(s: RunScope, c: Conversation): Promise<TemplateValues> {
    const agent = c.assigneeId ? await this.users.find(c.accountId, c.assigneeId) : null;
    return {
      contact: { name: s.contact.name, email: s.contact.email, phone: s.contact.phone, customAttributes: s.contact.customAttributes },
      agent: agent ? { name: agent.name, email: agent.email } : null,
      conversation: { displayId: c.displayId },
      account: { name: s.settings.name },
    };
  }

  /** What the action did (null: nothing to add), or why it did nothing. */
  private async perform(action: Action, s: RunScope): Promise<string | null | { skipped: string }> {
    const p = automationPrincipal(s.conversation.accountId, `Recipe "${s.recipe.name}"`);
    const id = s.conversation.id;
    const current = () => this.conversations.get(p, id);
    switch (action.type) {
      case 'assign_agent':
        await this.conversations.assign(p, id, { assignee_id: action.user_id } as AssignDto);
        return null;
      case 'assign_team': {
        if (action.round_robin === false) {
          await this.conversations.assign(p, id, { team_id: action.team_id } as AssignDto);
          return null;
        }
        const agent = await this.recipes.nextTeamAssignee(action.team_id, action.cap ?? null);
        await this.conversations.assign(p, id, (agent ? { team_id: action.team_id, assignee_id: agent } : { team_id: action.team_id }) as AssignDto);
        return agent ? `assigned to ${agent}` : 'every member holds the cap of open conversations: the team only';
      }
      case 'add_label': {
        const c = await current();
        if (c.labels.some((l) => l.toLowerCase() === action.label.toLowerCase())) return { skipped: `already labelled ${action.label}` };
        await this.conversations.update(p, id, { labels: [...c.labels, action.label] } as UpdateConversationDto);
        return null;
      }
      case 'reply': {
        const canned = await this.canned.find(s.conversation.accountId, action.canned_response_id);
        if (!canned) throw new Error('the canned response was deleted');
        const message = await this.conversations.sendMessage(p, id, { content: this.canned.render(canned, await this.values(s, await current())) } as SendReplyDto);
        return `message ${message.id} queued`;
      }
      case 'out_of_office_reply': {
        const { enabled, message } = s.settings.outOfOffice;
        if (!enabled || !message) return { skipped: 'the account’s out-of-office reply is off' };
        const sent = await this.conversations.sendMessage(p, id, { content: this.canned.renderText(message, await this.values(s, await current())) } as SendReplyDto);
        return `message ${sent.id} queued`;
      }
      case 'set_priority':
        await this.conversations.update(p, id, { priority: action.priority } as UpdateConversationDto);
        return null;
      case 'snooze':
        await this.conversations.setStatus(p, id, 'snoozed', new Date(Date.now() + action.minutes * 60_000));
        return null;
      case 'resolve':
        await this.conversations.setStatus(p, id, 'resolved');
        return null;
      case 'webhook': {
        const status = await this.webhooks.call(action.url, s.recipe.webhookSecret, { recipeId: s.recipe.id, eventId: s.event.id }, {
          event: { id: s.event.id, type: s.event.type, occurred_at: s.event.occurredAt },
          recipe: { id: s.recipe.id, name: s.recipe.name, version: s.recipe.version },
          conversation: conversationView(await current()),
          message: s.event.data.message ?? null,
        });
        return `answered ${status}`;
      }
    }
  }
}

function notFoundAsNull(err: unknown): null {
  if (err instanceof ApiError && err.getStatus() === 404) return null;
  throw err;
}
