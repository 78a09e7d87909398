import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module';
import { TeamsModule } from '../teams/teams.module';
import { UsersModule } from '../users/users.module';
import { ChannelCredentials } from './channel-credentials';
import { ChannelsController } from './channels.controller';
import { ChannelsRepository } from './channels.repository';
import { ChannelsService } from './channels.service';
import { EmailClient } from './email.client';
import { WhatsAppClient } from './whatsapp.client';

@Module({
  imports: [UsersModule, TeamsModule, SessionsModule],
  controllers: [ChannelsController],
  providers: [ChannelsRepository, ChannelsService, ChannelCredentials, WhatsAppClient, EmailClient],
  exports: [ChannelsService, ChannelCredentials, WhatsAppClient],
})
export class ChannelsModule {}
