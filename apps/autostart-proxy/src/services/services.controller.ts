import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { HealthBodyDto, HistoryQueryDto, RequestHistoryDto, ServiceListDto } from './services.dto';
import { ServicesService } from './services.service';

@ApiTags('services')
@Controller()
export class ServicesController {
  constructor(private readonly services: ServicesService) {}

  @Get('api/services')
  @ApiOperation({ summary: 'The managed services, their shared state and what the engine reports now' })
  @ApiOkResponse({ type: ServiceListDto })
  list(): Promise<ServiceListDto> {
    return this.services.list();
  }

  @Get('api/services/:name/requests')
  @ApiOperation({ summary: 'The latest requests to a service (all replicas), newest first' })
  @ApiOkResponse({ type: RequestHistoryDto })
  @ApiResponse({ status: 404, description: '`{error}`: no such service' })
  history(@Param('name') name: string, @Query() query: HistoryQueryDto): Promise<RequestHistoryDto> {
    return this.services.history(name, query.limit ?? 50);
  }

  @Get('health/:host')
  @ApiOperation({
    summary: "A managed host's readiness (the target of healthCheckUrl); never starts it",
    description:
      '200 `{status: "ready", service, hostname, containers}` when the workload is healthy (its own health check and its health-check path answering 2xx); ' +
      '503 with `Retry-After` and `{status: "starting", estimatedTime, retryAfter, …}` while it starts; 503 `{status: "stopped"}` when stopped; ' +
      '502 `{status: "failed", error}` once after a failed start (the next request starts it again). Served on any host, so the waiting page polls it on the service\'s own host.',
  })
  @ApiOkResponse({ type: HealthBodyDto })
  @ApiResponse({ status: 503, type: HealthBodyDto })
  @ApiResponse({ status: 404, description: '`{error}`: no managed service has this host' })
  async health(@Param('host') host: string, @Res({ passthrough: true }) res: Response): Promise<HealthBodyDto> {
    const answer = await this.services.health(host);
    res.status(answer.status);
    res.setHeader('cache-control', 'no-store');
    if (answer.retryAfter !== undefined) res.setHeader('retry-after', String(answer.retryAfter));
    return answer.body;
  }
}
