import { Controller, Get, Header, Query, Res, UseFilters } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { pageCsp } from '@platform/platform';
import type { Response } from 'express';
import { ProblemErrorFilter } from './problem-error.filter';
import { BlockingAnswerDto, BlockingQueryDto, DynamicQueryDto, InstanceEntryDto, ProblemDto, ThemesDto } from './sablier.dto';
import { SablierService, SESSION_STATUS_HEADER } from './sablier.service';

const STATUS_HEADER = { [SESSION_STATUS_HEADER]: { description: '`ready` when every instance is ready, else `not-ready`', schema: { type: 'string', enum: ['ready', 'not-ready'] } } };

/**
 * Sablier's HTTP API (its `docs/static/swagger.yaml`, API 1.0), which its Traefik, Caddy and nginx
 * plugins call: they point at this proxy instead of a Sablier server. Errors are RFC 7807 problems.
 */
@ApiTags('sablier')
@ApiExtraModels(InstanceEntryDto)
@UseFilters(new ProblemErrorFilter())
@Controller()
export class SablierController {
  constructor(private readonly sablier: SablierService) {}

  @Get('api/strategies/dynamic')
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary: 'The waiting page of the instances, starting what is stopped (dynamic strategy)',
    description:
      'Starts the stopped instances (once, across replicas) and answers at once with the themed page, which reloads itself every `refresh_frequency` ' +
      '(a meta refresh: no JavaScript needed). The plugin serves the page while the header says `not-ready` and passes the request on once it says `ready`.',
  })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The waiting page (text/html)', headers: STATUS_HEADER, schema: { type: 'string' } })
  @ApiResponse({ status: 400, type: ProblemDto, description: 'a bad parameter, names and group together, or neither' })
  @ApiResponse({ status: 404, type: ProblemDto, description: 'no such instance, group or theme' })
  async dynamic(@Query() query: DynamicQueryDto, @Res({ passthrough: true }) res: Response): Promise<string> {
    const answer = await this.sablier.dynamic(query);
    res.setHeader(SESSION_STATUS_HEADER, answer.status);
    // The page's own inline script and style, by hash (the platform's policy allows no inline script).
    res.setHeader('Content-Security-Policy', pageCsp(answer.html));
    res.type('html');
    return answer.html;
  }

  @Get('api/strategies/blocking')
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary: 'Waits until every instance is ready, starting what is stopped (blocking strategy)',
    description: 'Answers 200 once all are ready, 504 when `timeout` passes first (the start goes on), 502 when a start failed (the next call starts it again).',
  })
  @ApiOkResponse({ type: BlockingAnswerDto, headers: STATUS_HEADER })
  @ApiResponse({ status: 400, type: ProblemDto, description: 'a bad parameter, names and group together, or neither' })
  @ApiResponse({ status: 404, type: ProblemDto, description: 'no such instance or group' })
  @ApiResponse({ status: 502, type: ProblemDto, description: 'a start failed (engine error, unhealthy, start timeout)' })
  @ApiResponse({ status: 504, type: ProblemDto, description: 'not ready within `timeout`' })
  async blocking(@Query() query: BlockingQueryDto, @Res({ passthrough: true }) res: Response): Promise<BlockingAnswerDto> {
    const answer = await this.sablier.blocking(query);
    res.setHeader(SESSION_STATUS_HEADER, answer.status);
    return answer.body;
  }

  @Get(['api/themes', 'api/dynamic/themes'])
  @ApiOperation({ summary: 'The themes of the dynamic strategy: built in and custom (AUTOSTART_THEMES_DIR)' })
  @ApiOkResponse({ type: ThemesDto })
  themes(): ThemesDto {
    return { themes: this.sablier.themeNames() };
  }

  @Get('health')
  @ApiOperation({ summary: "Sablier's health: 200 `ok` while serving, 503 `terminating` once shutdown began (text)" })
  @ApiProduces('text/plain')
  @ApiOkResponse({ schema: { type: 'string', example: 'ok' } })
  @ApiResponse({ status: 503, schema: { type: 'string', example: 'terminating' } })
  health(@Res() res: Response): void {
    const answer = this.sablier.health();
    res.status(answer.status).type('text/plain').send(answer.text);
  }
}
