import { ApiProperty } from '@nestjs/swagger';

export class StatusCountsDto {
  @ApiProperty() automations: number;
  @ApiProperty({ description: 'Answering now (status active and active true)' }) active_automations: number;
  @ApiProperty() draft_automations: number;
  @ApiProperty() paused_automations: number;
  @ApiProperty({ description: 'next_post automations waiting for their reel' }) waiting_for_reel: number;
  @ApiProperty() contacts: number;
  @ApiProperty() runs: number;
  @ApiProperty() runs_last_24h: number;
  @ApiProperty() events: number;
}

export class RateLimitDto {
  @ApiProperty({ description: 'Calls waiting for a slot' }) queued: number;
  @ApiProperty({ description: 'Milliseconds the account is paused because the platform throttled it' }) paused_for_ms: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Highest usage percentage the platform reported last (X-Business-Use-Case-Usage)' }) usage_percent: number | null;
  @ApiProperty({ description: 'Platform calls in the current clock hour, counted by every replica together (shared budget GRAPH_CALLS_PER_HOUR)' }) calls_last_hour: number;
  @ApiProperty({ description: 'Private replies in the current clock hour, counted by every replica together (limit PRIVATE_REPLIES_PER_HOUR, ≤ 750)' }) private_replies_last_hour: number;
}

export class QueueStatusDto {
  @ApiProperty({ description: 'Work items due now (webhook items, reminders, read fallbacks), waiting for a worker or in hand' }) due: number;
  @ApiProperty({ description: 'Work items scheduled later: reminders, read fallbacks, retries and deferred private replies' }) scheduled: number;
  @ApiProperty({ description: 'Among the scheduled: items whose private reply waits for the hourly budget or the pacing' }) deferred: number;
  @ApiProperty({ type: String, nullable: true, description: 'Since when the oldest due item waits, ISO 8601 (null: nothing due)' }) oldest_due_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Earliest time of the next private reply (pacing: PRIVATE_REPLY_SPACING_MS + jitter), ISO 8601; null before the first' })
  next_private_reply_at: string | null;
}

export class CommentPollerStatusDto {
  @ApiProperty({ description: 'Start-date watermark: comments older than this are never recovered (ISO 8601)' }) since: string;
  @ApiProperty({ type: String, nullable: true, description: 'ISO 8601' }) last_pass_at: string | null;
  @ApiProperty({ description: 'Platform requests of the last pass (at most COMMENT_POLL_MAX_REQUESTS)' }) requests_last_pass: number;
  @ApiProperty({ description: 'Comments whose webhook never came, queued by the last pass' }) recovered_last_pass: number;
  @ApiProperty({ description: 'Comments the account had answered already, recorded and skipped by the last pass' }) answered_skipped_last_pass: number;
  @ApiProperty() recovered_total: number;
  @ApiProperty({ type: String, nullable: true, description: 'Error of the last pass' }) problem: string | null;
}

export class StatusDto {
  @ApiProperty({ enum: ['connected', 'not_connected', 'token_invalid', 'token_expired', 'sandbox'], description: 'Connection state stored for the account (`sandbox`: development without platform credentials, connected to the built-in sandbox)' })
  account_status: string;
  @ApiProperty({ type: String, nullable: true, description: 'Error text when the social platform API does not answer, otherwise null' }) problem: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Error text when only the webhook subscription could not be read (or lacks required fields)' })
  webhook_problem: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Access token expiry, ISO 8601, read from the platform at start (debug_token, else the refresh answer) and after every refresh; null until then' }) token_expires_at: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Whole days until the token expires (negative when expired)' }) token_expires_in_days: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Last refresh of the token by the service (token scheduler or MCP refresh_token), ISO 8601; null: never refreshed here. A failed refresh shows in `problem` ("Token refresh failed: …", with the attempt number) until one works' })
  token_refreshed_at: string | null;
  @ApiProperty() account_id: number;
  @ApiProperty({ type: String, nullable: true }) ig_user_id: string | null;
  @ApiProperty({ type: String, nullable: true }) username: string | null;
  @ApiProperty({ type: [String], description: 'Webhook fields the app is subscribed to for this account' }) subscribed_fields: string[];
  @ApiProperty({ type: StatusCountsDto }) counts: StatusCountsDto;
  @ApiProperty({ type: RateLimitDto }) rate_limit: RateLimitDto;
  @ApiProperty({ type: QueueStatusDto, description: 'Not in the spec: the depth of the account\'s work queue and the pacing of its private replies' }) queue: QueueStatusDto;
  @ApiProperty({ type: String, nullable: true, description: 'Last periodic check of the webhook subscription (every SUBSCRIPTION_CHECK_INTERVAL_MS), ISO 8601; null before the first' })
  webhook_checked_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Last time the periodic check found the subscription gone (or lacking a required field) and subscribed the app again, ISO 8601' })
  webhook_resubscribed_at: string | null;
  @ApiProperty({ type: CommentPollerStatusDto, nullable: true, description: 'The comment poller that recovers comments whose webhook never came; null until its first pass for the account (connected accounts only)' })
  comment_poller: CommentPollerStatusDto | null;
  @ApiProperty({ description: 'ISO 8601' }) checked_at: string;
}
