import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RouteTable } from '../routes/route-table';
import { ServiceListDto } from './services.dto';
import { probeUpstream } from './upstream-probe';

const PROBE_TIMEOUT_MS = 1000;

@ApiTags('gateway')
@Controller()
export class ServicesController {
  constructor(private readonly routes: RouteTable) {}

  @Get()
  @ApiOperation({
    summary: 'List the services behind the gateway',
    description:
      'Each service with its prefix, its upstream, links to its docs through the gateway, and whether its ' +
      `/healthz answered within ${PROBE_TIMEOUT_MS} ms just now (informational: the gateway stays ready either way).`,
  })
  @ApiOkResponse({ type: ServiceListDto })
  async list(): Promise<ServiceListDto> {
    const services = await Promise.all(
      this.routes.routes.map(async (route) => ({
        name: route.name,
        prefix: route.prefix,
        upstream: route.upstream.origin,
        docs: `${route.prefix}/api/docs`,
        openapi: `${route.prefix}/api/docs-json`,
        status: await probeUpstream(route.upstream, PROBE_TIMEOUT_MS),
      })),
    );
    return { name: 'gateway', docs: '/api/docs', services };
  }
}
