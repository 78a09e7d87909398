import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { MediaModule } from '../media/media.module';
import { WhatsAppWebhookController } from './whatsapp-webhook.controller';
import { WhatsAppWebhookService } from './whatsapp-webhook.service';

@Module({ imports: [ChannelsModule, ConversationsModule, MediaModule], controllers: [WhatsAppWebhookController], providers: [WhatsAppWebhookService] })
export class WebhooksModule {}
