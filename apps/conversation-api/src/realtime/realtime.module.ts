import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ChannelsModule } from '../channels/channels.module';
import { AccessEndedConsumer } from './access-ended.consumer';
import { AgentsGateway } from './agents.gateway';

@Module({ imports: [AuthModule, ChannelsModule], providers: [AgentsGateway, AccessEndedConsumer] })
export class RealtimeModule {}
