import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope, ok } from '@platform/envelopes';
import type { Response } from 'express';
import { CurrentProject, ProjectAccess, type ProjectAccessOptions, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, JSON_BODY_ERRORS, type ErrorDocs } from '../common/api-errors.decorator';
import { RequestId } from '../common/request-id.decorator';
import { assertDataKeys } from '../contacts/contacts.service';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { TrackEventDto, TrackResponseDto } from './dto/track.dto';
import { TrackService, type TrackResult } from './track.service';

const IDEMPOTENCY_DOC = ApiHeader({
  name: 'Idempotency-Key',
  required: false,
  description: 'Retry-safe: a repeated request with the same key and body returns the first answer (header `Idempotent-Replayed: true`) without recording again; the same key with another body gives 409 `IDEMPOTENCY_KEY_REUSED`. Keys live 24 hours.',
});

/** What recording an event can refuse, besides the access errors. */
const TRACK_ERRORS: ErrorDocs = {
  400: '`INVALID_IDEMPOTENCY_KEY`: the Idempotency-Key is not 1 to 255 visible ASCII characters',
  409: '`IDEMPOTENCY_KEY_REUSED`: the Idempotency-Key was used with another body',
  422: '`VALIDATION_ERROR`: a reserved event name (code `reserved_name`) or `data` key (code `reserved_key`)',
};

/** Who may call POST /v1/track: the public or the secret key (also what its raw route checks). */
export const TRACK_ACCESS: ProjectAccessOptions = { publicKey: true };

@ApiTags('Public API')
@Controller()
export class TrackController {
  constructor(
    private readonly tracking: TrackService,
    private readonly idempotency: IdempotencyService,
  ) {}

  @Post('v1/track')
  @HttpCode(200)
  @ProjectAccess(TRACK_ACCESS)
  @IDEMPOTENCY_DOC
  @ApiOkEnvelope(TrackResponseDto, { description: '`{success: true, data: {contact, event, timestamp}}`' })
  @ApiErrors(JSON_BODY_ERRORS, TRACK_ERRORS)
  @ApiOperation({
    summary: 'Track an event (public or secret key)',
    description:
      'Creates or updates the contact, records the event and, once both are committed, publishes `email.event_tracked` on the event bus; off the request path, the workflow engine then starts the matching workflows — every enabled one of the project whose EVENT trigger names the event — for this contact (`allowReentry` respected, once per event) and resumes the contact\'s executions waiting for it (WAIT_FOR_EVENT). Answers `{success: true, data: {contact, event, timestamp}}`.',
  })
  track(@CurrentProject() ctx: ProjectContext, @Body() body: TrackEventDto, @Res({ passthrough: true }) res: Response, @Headers('idempotency-key') key?: string, @RequestId() requestId?: string) {
    return this.record(ctx, body, res, key, requestId);
  }

  @Post('events/track')
  @HttpCode(200)
  // The spec allows the public key on POST /v1/track only: the alias takes the secret key or a session.
  @ProjectAccess({ session: true })
  @IDEMPOTENCY_DOC
  @ApiOkEnvelope(TrackResponseDto, { description: '`{success: true, data: {contact, event, timestamp}}`, as POST /v1/track' })
  @ApiErrors(JSON_BODY_ERRORS, TRACK_ERRORS)
  @ApiOperation({ summary: 'Alias of POST /v1/track for the secret key and dashboard sessions (the public key: 401 INVALID_API_KEY)' })
  trackAlias(@CurrentProject() ctx: ProjectContext, @Body() body: TrackEventDto, @Res({ passthrough: true }) res: Response, @Headers('idempotency-key') key?: string, @RequestId() requestId?: string) {
    return this.record(ctx, body, res, key, requestId);
  }

  private async record(ctx: ProjectContext, body: TrackEventDto, res: Response, key: string | undefined, requestId: string | undefined) {
    assertDataKeys(body.data);
    if (key === undefined) return trackAnswer(await this.tracking.track(ctx.project.id, body, requestId));
    const result = await this.idempotency.run(ctx.project.id, 'track', key, body, 200, async () => trackAnswer(await this.tracking.track(ctx.project.id, body, requestId)));
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    return result.body;
  }
}

/** The answer of a tracked event. */
export function trackAnswer(tracked: TrackResult) {
  return ok({ contact: tracked.contact.id, event: tracked.eventId, timestamp: tracked.timestamp.toISOString() });
}
