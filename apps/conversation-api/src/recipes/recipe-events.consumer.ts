import { Injectable } from '@nestjs/common';
import { EventConsumer, Inbox, OnEvent, type EventEnvelope } from '@platform/messaging';
import { ConversationAssigneeChanged, ConversationCreated, ConversationMessageCreated, ConversationStatusChanged, triggerOf, type ConversationEventData } from '../conversations/conversation-events';
import { ActiveRecipeAccounts } from './active-recipe-accounts';
import { RunRecipes } from './run-recipes';

const CONSUMER = 'conversation-api.recipes';

/**
 * Conversation events → recipe runs. One queue shared by every replica (each event reaches one).
 * An event of an account without a published, enabled recipe is done at once (no transaction, no
 * mark: it runs nothing, now or on a redelivery, unless a recipe was published meanwhile). Else the
 * inbox marks the event in the transaction of its runs: a redelivery after a crash or a broker
 * retry finds the mark and runs nothing twice.
 */
@Injectable()
@EventConsumer(CONSUMER, { inbox: false })
export class RecipeEventsConsumer {
  constructor(
    private readonly run: RunRecipes,
    private readonly inbox: Inbox,
    private readonly activeRecipes: ActiveRecipeAccounts,
  ) {}

  @OnEvent([ConversationMessageCreated, ConversationCreated, ConversationStatusChanged, ConversationAssigneeChanged])
  async handle(event: EventEnvelope<ConversationEventData>): Promise<void> {
    if (!triggerOf(event.type) || !(await this.activeRecipes.has(event.data.accountId))) return;
    await this.inbox.once(CONSUMER, event.id, () => this.run.execute(event));
  }
}
