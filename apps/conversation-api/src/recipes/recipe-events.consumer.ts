import { Injectable } from '@nestjs/common';
import { EventConsumer, Inbox, OnEvent, type EventEnvelope } from '@platform/messaging';
import { ConversationAssigneeChanged, ConversationCreated, ConversationMessageCreated, ConversationStatusChanged, type ConversationEventData } from '../conversations/conversation-events';
import { RunRecipes } from './run-recipes';

const RECIPES_CONSUMER = 'conversation-api.recipes';

/**
 * Conversation events → recipe runs. One queue shared by every replica (each event reaches one).
 * An event that triggers no published recipe of its account is done with at once (no transaction,
 * no mark: running it again runs nothing either). Otherwise the inbox marks the event in the
 * transaction of its runs: a redelivery after a crash or a broker retry finds the mark and runs
 * nothing twice (and each run is claimed once per recipe and event besides).
 */
@Injectable()
@EventConsumer(RECIPES_CONSUMER)
export class RecipeEventsConsumer {
  constructor(
    private readonly run: RunRecipes,
    private readonly inbox: Inbox,
  ) {}

  /** Its inbox mark is written around the runs (`Inbox.once`), only when a recipe may run. */
  @OnEvent([ConversationMessageCreated, ConversationCreated, ConversationStatusChanged, ConversationAssigneeChanged], { inbox: false })
  async handle(event: EventEnvelope<ConversationEventData>): Promise<void> {
    const active = await this.run.recipesFor(event);
    if (!active.length) return;
    await this.inbox.once(RECIPES_CONSUMER, event.id, () => this.run.execute(event, active));
  }
}
