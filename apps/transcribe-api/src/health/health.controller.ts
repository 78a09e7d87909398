import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { EnginesService } from '../engines/engines.service';
import { QueueRegistry } from '../queue/queue.module';
import { HealthDto } from '../transcribe/dto/responses.dto';

/** The spec's `/health`: real probes of Redis (PING on both queue databases) and of both engines. */
@ApiTags('service')
@Controller()
export class HealthController {
  constructor(
    private readonly queues: QueueRegistry,
    private readonly engines: EnginesService,
  ) {}

  @Get('health')
  @ApiOperation({
    summary: 'Health of the queue store and the engines',
    description:
      'Always 200; `status` is `healthy` when Redis (or the in-memory queue) answers, every configured engine answers its /health (or /v1/models), and at least one engine is configured. Kubernetes probes use /healthz and /readyz instead.',
  })
  @ApiOkResponse({ type: HealthDto })
  async health(): Promise<HealthDto> {
    const [redis, fasterWhisper, whisper] = await Promise.all([
      this.queues.kind === 'in-memory'
        ? Promise.resolve('in-memory' as const)
        : this.queues.check().then(
            () => 'connected' as const,
            () => 'disconnected' as const,
          ),
      this.engines.health('faster-whisper'),
      this.engines.health('whisper'),
    ]);
    const engines = [fasterWhisper, whisper];
    const healthy = redis !== 'disconnected' && !engines.includes('unhealthy') && engines.includes('healthy');
    return { status: healthy ? 'healthy' : 'unhealthy', redis, faster_whisper: fasterWhisper, whisper, timestamp: new Date().toISOString() };
  }
}
