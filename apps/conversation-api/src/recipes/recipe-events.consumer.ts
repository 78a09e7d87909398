import { Injectable } from '@nestjs/common';
import { EventConsumer, OnEvent, type EventEnvelope } from '@platform/messaging';
import { ConversationAssigneeChanged, ConversationCreated, ConversationMessageCreated, ConversationStatusChanged, type ConversationEventData } from '../conversations/conversation-events';
import { RunRecipes } from './run-recipes';

/**
 * Conversation events → recipe runs. One queue shared by every replica (each event reaches one), and
 * the inbox (on by default) marks each event in the transaction of its runs: a redelivery after a
 * crash or a broker retry finds the mark and runs nothing twice.
 */
@Injectable()
@EventConsumer('conversation-api.recipes')
export class RecipeEventsConsumer {
  constructor(private readonly run: RunRecipes) {}

  @OnEvent([ConversationMessageCreated, ConversationCreated, ConversationStatusChanged, ConversationAssigneeChanged])
  async handle(event: EventEnvelope<ConversationEventData>): Promise<void> {
    await this.run.execute(event);
  }
}
