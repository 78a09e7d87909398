import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiFoundResponse, ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ErrorDto } from '../common/error.dto';
import { ClicksService } from './clicks.service';

/** Click tracking redirect: public, outside /api/v1, no API key. */
@ApiTags('click redirect')
@Controller('r')
export class ClicksController {
  constructor(private readonly clicks: ClicksService) {}

  @Get(':code')
  @ApiOperation({
    summary: 'Click-tracking redirect',
    description:
      'Links sent with `track_clicks` point to `${PUBLIC_BASE_URL}/r/{code}` (12 base62 characters from a CSPRNG). Counts the click on the run (`clicked`), tags the contact ' +
      '`link_clicked` (source `link_clicked:YYYY-MM-DD`), logs an Event `link_clicked`, publishes `automation.link_clicked`, and redirects 302 to the target. Unknown code → 404.',
  })
  @ApiFoundResponse({ description: 'Location: the target URL' })
  @ApiNotFoundResponse({ type: ErrorDto })
  async redirect(@Param('code') code: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const url = await this.clicks.click(code, req.ip ?? null, req.get('user-agent') ?? null);
    res.redirect(302, url);
  }
}
