import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { AgentsGateway } from './agents.gateway';

@Module({ imports: [AuthModule], providers: [AgentsGateway] })
export class RealtimeModule {}
