import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { CannedResponsesModule } from '../canned-responses/canned-responses.module';
import { ChannelsModule } from '../channels/channels.module';
import { ContactsModule } from '../contacts/contacts.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { LabelsModule } from '../labels/labels.module';
import { TeamsModule } from '../teams/teams.module';
import { UsersModule } from '../users/users.module';
import { RecipeEventsConsumer } from './recipe-events.consumer';
import { RecipeWebhookCaller } from './recipe-webhook';
import { RecipesController } from './recipes.controller';
import { RecipesRepository } from './recipes.repository';
import { RecipesService } from './recipes.service';
import { RunRecipes } from './run-recipes';

@Module({
  imports: [LabelsModule, CannedResponsesModule, UsersModule, TeamsModule, ChannelsModule, ConversationsModule, ContactsModule, AccountsModule],
  controllers: [RecipesController],
  providers: [RecipesRepository, RecipesService, RunRecipes, RecipeWebhookCaller, RecipeEventsConsumer],
  exports: [RecipesService],
})
export class RecipesModule {}
