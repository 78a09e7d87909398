import { Module } from '@nestjs/common';
import { EngineModule } from '../engine/engine.module';
import { SandboxController, SandboxGraphController } from './sandbox.controller';
import { SandboxPlatform } from './sandbox-platform';

/** Built-in platform sandbox for local runs; imported only when isSandbox(config) (never in production). */
@Module({
  imports: [EngineModule],
  controllers: [SandboxGraphController, SandboxController],
  providers: [SandboxPlatform],
})
export class SandboxModule {}
