import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiFoundResponse, ApiNotFoundResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
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
      'Links sent with `track_clicks` point to `${PUBLIC_BASE_URL}/r/{code}` (12 base62 characters from a CSPRNG). The click is stored before the 302 to the target; right after, off the request, it is counted on the run (`clicked`), ' +
      'the contact is tagged `link_clicked` (source `link_clicked:YYYY-MM-DD`), an Event `link_clicked` is logged and the bus event `automation.link_clicked` queued, together; a request to this API made after the redirect answered sees the click counted. Any other code → 404.',
  })
  @ApiParam({ name: 'code', type: String })
  @ApiFoundResponse({ description: 'Location: the target URL' })
  @ApiNotFoundResponse({ type: ErrorDto })
  async redirect(@Req() req: Request, @Res() res: Response): Promise<void> {
    // Read from the request: no argument pipes on this hot path, and every code that is not a link is a 404.
    const url = await this.clicks.click(String(req.params.code), req.ip ?? null, req.get('user-agent') ?? null);
    res.redirect(302, url);
  }
}
