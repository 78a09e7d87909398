import { Module } from '@nestjs/common';
import { SandboxController, SandboxGraphController } from './sandbox.controller';
import { SandboxPlatform } from './sandbox-platform';
import { WebhooksModule } from '../webhooks/webhooks.module';

/** Built-in platform sandbox for local runs; imported only when isSandbox(config) (never in production). */
@Module({
  imports: [WebhooksModule],
  controllers: [SandboxGraphController, SandboxController],
  providers: [SandboxPlatform],
})
export class SandboxModule {}
