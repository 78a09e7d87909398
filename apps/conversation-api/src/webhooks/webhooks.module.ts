import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { WhatsAppWebhookController } from './whatsapp-webhook.controller';
import { WhatsAppWebhookService } from './whatsapp-webhook.service';

@Module({ imports: [ChannelsModule, ConversationsModule], controllers: [WhatsAppWebhookController], providers: [WhatsAppWebhookService] })
export class WebhooksModule {}
