import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MATCH_MODES } from '../../matching/keyword-matcher';
import { AUTOMATION_STATUSES, ORIGINS, REEL_STATUSES, TRIGGERS } from '../entities/automation.entity';
import { ExtraLinkDto } from './automation-input.dto';

export class ReelSuggestionDto {
  @ApiProperty() media_id: string;
  @ApiProperty({ nullable: true, type: String }) permalink: string | null;
  @ApiProperty({ example: 'two reels matched the caption' }) reason: string;
  @ApiProperty({ description: 'When the suggestion was made (ISO 8601)' }) at: string;
}

/** Automation (response): every AutomationInput field with its effective value, plus the state fields. */
export class AutomationDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty({ enum: AUTOMATION_STATUSES, description: 'draft answers nothing until go_live' }) status: string;
  @ApiProperty() active: boolean;
  @ApiProperty({ enum: TRIGGERS }) trigger: string;
  @ApiProperty({ type: [String], nullable: true }) media_ids: string[] | null;
  @ApiProperty() next_post: boolean;
  @ApiProperty({ type: String, nullable: true }) reel_caption: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'ISO 8601 (UTC)' }) reel_publish_at: string | null;
  @ApiProperty({ type: [String] }) keywords: string[];
  @ApiProperty({ enum: MATCH_MODES }) match_mode: string;
  @ApiProperty({ type: [String] }) exclude_keywords: string[];
  @ApiProperty({ type: [String] }) public_replies: string[];
  @ApiProperty() opening_text: string;
  @ApiProperty({ type: String, nullable: true }) opening_button: string | null;
  @ApiProperty() follow_gate: boolean;
  @ApiProperty() gate_text: string;
  @ApiProperty() gate_button: string;
  @ApiProperty({ type: String, nullable: true }) link_url: string | null;
  @ApiProperty() link_text: string;
  @ApiProperty() link_button: string;
  @ApiProperty({ type: [ExtraLinkDto] }) extra_links: ExtraLinkDto[];
  @ApiProperty({ type: String, nullable: true }) follow_up_text: string | null;
  @ApiProperty() follow_up_minutes: number;
  @ApiProperty() email_gate: boolean;
  @ApiProperty() email_text: string;
  @ApiProperty() email_retry_text: string;
  @ApiProperty() email_skip_if_known: boolean;
  @ApiProperty({ type: String, nullable: true }) webhook_url: string | null;
  @ApiProperty({ type: String, example: '***', description: 'Always `***`, whether or not a secret is stored: the secret is never returned. Sending `***` back in a PATCH keeps the stored one.' }) webhook_secret: string;
  @ApiProperty() track_clicks: boolean;
  @ApiProperty({ type: [String] }) tags: string[];
  @ApiProperty() once_per_user: boolean;
  @ApiProperty() priority: number;
  @ApiProperty({ type: String, nullable: true }) notes: string | null;
  @ApiProperty({ description: 'Comment trigger only. Skip comments the account already answered without this service (run state skipped_other_tool). Top-level comment: answered when its replies hold one from the account that this service did not post. A comment that is itself a reply (replies are one level deep, answers go under the same top-level comment): answered when the parent’s replies hold one from the account that this service did not post, that @mentions the reply’s author (case-insensitive, whole handle) and is not older than the reply. Checked once, before the first send.' }) skip_if_answered: boolean;
  @ApiProperty({ description: 'next_post automation still waiting for its reel' }) pending_next: boolean;
  @ApiProperty({ enum: REEL_STATUSES, nullable: true }) reel_status: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The reel the automation attached itself to' }) reel_media_id: string | null;
  @ApiProperty({ type: String, nullable: true }) reel_attached_at: string | null;
  @ApiProperty({ type: String, nullable: true }) reel_expired_at: string | null;
  @ApiProperty({ type: ReelSuggestionDto, nullable: true }) reel_suggestion: ReelSuggestionDto | null;
  @ApiProperty() transition_mode: boolean;
  @ApiProperty({ enum: ORIGINS, nullable: true }) origin: string | null;
  @ApiProperty({ type: String, nullable: true }) imported_from: string | null;
  @ApiProperty({ description: 'ISO 8601 (UTC)' }) created_at: string;
  @ApiProperty({ description: 'ISO 8601 (UTC)' }) updated_at: string;
}

export class PreviewButtonDto {
  @ApiProperty({ enum: ['postback', 'web_url'] }) type: string;
  @ApiProperty() title: string;
  @ApiPropertyOptional({ description: 'web_url buttons: the target (the tracked redirect replaces it when track_clicks is on)' }) url?: string;
}

export class PreviewStepDto {
  @ApiProperty({ enum: ['public_reply', 'opening_dm', 'follow_gate', 'email_question', 'email_retry', 'link_dm', 'follow_up', 'webhook', 'tags'] })
  type: string;
  @ApiProperty({ description: 'When the step happens' }) when: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Message text with {username} filled' }) text?: string | null;
  @ApiPropertyOptional({ type: [String], description: 'public_reply: one of these is picked at random' }) options?: string[];
  @ApiPropertyOptional({ type: [PreviewButtonDto] }) buttons?: PreviewButtonDto[];
  @ApiPropertyOptional({ description: 'follow_up: minutes without a click' }) after_minutes?: number;
  @ApiPropertyOptional({ type: [String], description: 'webhook: event kinds; tags: tags given' }) items?: string[];
  @ApiPropertyOptional({ description: 'webhook target' }) url?: string;
  @ApiPropertyOptional({ description: 'Whether link clicks are counted through the redirect' }) tracked?: boolean;
}

/** What an automation would send, in order. */
export class MessagesPreviewDto {
  @ApiProperty({ description: 'Value used for {username}' }) username: string;
  @ApiProperty({ type: [PreviewStepDto] }) steps: PreviewStepDto[];
}

export class AutomationResultDto {
  @ApiProperty({ type: AutomationDto }) automation: AutomationDto;
  @ApiProperty({ type: MessagesPreviewDto, description: 'Preview of the messages' }) preview: MessagesPreviewDto;
  @ApiProperty({ type: [String], description: 'Hints about the configuration' }) notes: string[];
}

export class AutomationSummaryDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty({ enum: AUTOMATION_STATUSES }) status: string;
  @ApiProperty() active: boolean;
  @ApiProperty({ enum: TRIGGERS }) trigger: string;
  @ApiProperty({ type: [String] }) keywords: string[];
  @ApiProperty({
    oneOf: [{ type: 'string', enum: ['all', 'next post (waiting)', 'next post (expired)'] }, { type: 'array', items: { type: 'string' } }],
    description: '`all`, `next post (waiting)`, `next post (expired)`, or a list of post IDs (the attached reel once a next_post automation attached)',
  })
  posts: string | string[];
  @ApiProperty({ enum: REEL_STATUSES, nullable: true }) reel_status: string | null;
  @ApiProperty({ type: String, nullable: true }) reel_caption: string | null;
  @ApiProperty({ type: String, nullable: true }) reel_publish_at: string | null;
  @ApiProperty({ type: ReelSuggestionDto, nullable: true }) reel_suggestion: ReelSuggestionDto | null;
  @ApiProperty() follower_check: boolean;
  @ApiProperty() email_gate: boolean;
  @ApiProperty() webhook: boolean;
  @ApiProperty({ type: String, nullable: true }) link: string | null;
  @ApiProperty() transition_mode: boolean;
  @ApiProperty({ enum: ORIGINS, nullable: true }) origin: string | null;
  @ApiProperty({ description: 'Runs started' }) triggered: number;
  @ApiProperty({ description: 'Runs where the link DM went out' }) link_sent: number;
  @ApiProperty({ description: 'Runs with at least one link click' }) clicked: number;
  @ApiProperty({ example: '2026-11-21 18:04:05', description: 'Last change, UTC, YYYY-MM-DD HH:MM:SS' }) updated_at: string;
}

export const FUNNEL_COUNTERS = [
  'triggered',
  'dm_sent',
  'button_tapped',
  'gated',
  'gate_passed',
  'email_asked',
  'email_captured',
  'email_expired',
  'link_sent',
  'clicked',
  'followed_up',
  'errors',
  'skipped',
  'skipped_other_tool',
  'read_fallback',
  'human_takeover',
] as const;
export type FunnelCounter = (typeof FUNNEL_COUNTERS)[number];

/**
 * Funnel of one automation (id set, `active` boolean) or of all automations together (GET /funnel's
 * last item: id null, name `all automations`, trigger `all`, `active` = number of live automations).
 * A counter is null when the automation has no such step (for example email_* without email_gate).
 */
export class FunnelDto {
  @ApiProperty({ type: Number, nullable: true }) id: number | null;
  @ApiProperty() name: string;
  @ApiProperty() trigger: string;
  @ApiProperty({ oneOf: [{ type: 'boolean' }, { type: 'integer' }] }) active: boolean | number;
  @ApiProperty({ type: Number, nullable: true }) triggered: number | null;
  @ApiProperty({ type: Number, nullable: true }) dm_sent: number | null;
  @ApiProperty({ type: Number, nullable: true }) button_tapped: number | null;
  @ApiProperty({ type: Number, nullable: true }) gated: number | null;
  @ApiProperty({ type: Number, nullable: true }) gate_passed: number | null;
  @ApiProperty({ type: Number, nullable: true }) email_asked: number | null;
  @ApiProperty({ type: Number, nullable: true }) email_captured: number | null;
  @ApiProperty({ type: Number, nullable: true }) email_expired: number | null;
  @ApiProperty({ type: Number, nullable: true }) link_sent: number | null;
  @ApiProperty({ type: Number, nullable: true }) clicked: number | null;
  @ApiProperty({ type: Number, nullable: true }) followed_up: number | null;
  @ApiProperty({ type: Number, nullable: true }) errors: number | null;
  @ApiProperty({ type: Number, nullable: true }) skipped: number | null;
  @ApiProperty({ type: Number, nullable: true }) skipped_other_tool: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Not in the spec: runs whose link (or email question) went out because the person read the opening DM and did not tap its button (AUTOMATION_READ_FALLBACK_MINUTES); null without an opening button',
  })
  read_fallback: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Not in the spec: runs a person of the account took over by answering the conversation by hand, and triggers skipped during such a pause (AUTOMATION_TAKEOVER_MINUTES)',
  })
  human_takeover: number | null;
}
