import type { PipeTransform, Type } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { ApiError } from '@platform/errors';
import { PlatformValidationPipe, RejectNulPipe } from '@platform/platform';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { AutomationsController } from '../automations/automations.controller';
import { AttachDto } from '../automations/dto/attach.dto';
import { AutomationInputDto } from '../automations/dto/automation-input.dto';
import { BillingService } from '../billing/billing.service';
import { PositiveIdPipe } from '../common/id.pipe';
import { ContactsController } from '../contacts/contacts.controller';
import { ListContactsQueryDto, UpdateContactDto } from '../contacts/dto/contact.dto';
import { ListEventsQueryDto } from '../events/dto/event.dto';
import { EventsController } from '../events/events.controller';
import { ImportRequestDto } from '../imports/dto/import.dto';
import { ImportsController } from '../imports/imports.controller';
import { CreatePlannedPostDto, ListPlannedPostsQueryDto } from '../planned-posts/dto/planned-post.dto';
import { PlannedPostsController } from '../planned-posts/planned-posts.controller';
import { PlannedPostsService } from '../planned-posts/planned-posts.service';
import { ListCommentsQueryDto, ListPostsQueryDto, MediaIdPipe } from '../posts/dto/post.dto';
import { PostsController } from '../posts/posts.controller';
import { PreviewRequestDto } from '../preview/dto/preview.dto';
import { PreviewController } from '../preview/preview.controller';
import { CreateReelDto, ListReelsQueryDto } from '../reels/dto/reel.dto';
import { ReelsController } from '../reels/reels.controller';
import { StatusController } from '../status/status.controller';
import { TokensService } from '../tokens/tokens.service';
import { UploadVideoChunkDto, UploadVideoToolDto, VIDEO_CONTENT_TYPES, VideoChunkDto } from '../videos/dto/video.dto';
import { VideosService } from '../videos/videos.service';
import { BillingStatusDto } from '../billing/billing.dto';
import { TokenRefreshDto } from '../tokens/token.dto';
import { CheckFollowerDto, FollowerDto, SubscribeWebhooksDto, SubscriptionDto, WEBHOOK_FIELDS } from './platform-tools.dto';
import { PlatformToolsService } from './platform-tools.service';

/**
 * What a tool call has to work with: the account of the bearer key, the arguments, and the REST
 * pipeline's own pieces — path parameters go through the route's pipe, bodies and queries through
 * the global RejectNulPipe and PlatformValidationPipe with the route's DTO — so a tool refuses
 * exactly what the REST operation refuses, with the same message.
 */
export class ToolCall {
  private readonly used = new Set<string>();

  constructor(
    readonly account: AccountEntity,
    private readonly args: Record<string, unknown>,
    private readonly moduleRef: ModuleRef,
  ) {}

  get<T>(type: Type<T>): T {
    return this.moduleRef.get(type, { strict: false });
  }

  /** A path parameter: text as in a URL (numbers are accepted and written out), then the route's pipe. */
  async param<T = string>(name: string, pipe?: PipeTransform): Promise<T> {
    this.used.add(name);
    const raw = this.args[name];
    const text = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
    if (typeof text !== 'string') {
      if (pipe) return pipe.transform('', { type: 'param', data: name });
      throw new ApiError(400, 'VALIDATION_ERROR', `${name} must be a string`);
    }
    await new RejectNulPipe().transform(text, { type: 'param', data: name });
    return (pipe ? pipe.transform(text, { type: 'param', data: name }) : text) as T;
  }

  id(name = 'id'): Promise<number> {
    return this.param<number>(name, new PositiveIdPipe(name));
  }

  /** The arguments not taken as path parameters, validated as the route's body. */
  body<T extends object>(dto: Type<T>): Promise<T> {
    return this.validated('body', dto);
  }

  /** The arguments not taken as path parameters, validated as the route's query. */
  query<T extends object>(dto: Type<T>): Promise<T> {
    return this.validated('query', dto);
  }

  /** No further arguments (the operation has no body or query): anything else is refused like an unknown property. */
  none(): void {
    const extra = Object.keys(this.args).filter((k) => !this.used.has(k));
    if (extra.length) throw new ApiError(400, 'VALIDATION_ERROR', extra.map((k) => `property ${k} should not exist`).join('; '));
  }

  private async validated<T extends object>(type: 'body' | 'query', dto: Type<T>): Promise<T> {
    const rest = Object.fromEntries(Object.entries(this.args).filter(([k]) => !this.used.has(k)));
    for (const k of Object.keys(rest)) this.used.add(k);
    const meta = { type, metatype: dto, data: undefined } as const;
    await new RejectNulPipe().transform(rest, meta);
    return (await new PlatformValidationPipe().transform(rest, meta)) as T;
  }
}

/** MCP tool annotations (the protocol's ToolAnnotations hints). */
export interface ToolHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * The annotations of a tool: a GET is read-only and idempotent; any other operation writes, is not
 * destructive (it adds or moves something forward) and not idempotent unless its hints say so;
 * openWorldHint for the tools that reach the social platform.
 */
export function annotationsOf(t: ToolDefinition): ToolHints & { title: string } {
  const get = t.rest?.startsWith('GET ') ?? false;
  const base: ToolHints = { readOnlyHint: get, destructiveHint: false, idempotentHint: get, openWorldHint: t.platform === true };
  const title = t.name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
  return { title, ...base, ...t.hints };
}

export interface ToolDefinition {
  name: string;
  description: string;
  /** The REST operation (`METHOD /api/v1/path/{param}`) the tool performs; none for the MCP-only tools. */
  rest?: string;
  /** Input schema of the MCP-only tools (the others take theirs from the REST operation's OpenAPI description). */
  inputSchema?: Record<string, unknown>;
  /** The result's schema (a DTO in the OpenAPI document's components) of the MCP-only tools; the others answer their REST operation's body. */
  output?: string;
  /** Hints beyond what the REST method says (GET: read-only and idempotent; others: neither). */
  hints?: ToolHints;
  /** The tool calls the social platform (openWorldHint). */
  platform?: boolean;
  run(call: ToolCall): Promise<unknown>;
}

/** The result DTOs of the MCP-only tools, added to the OpenAPI document (extraModels) for their output schemas. */
export const MCP_RESULT_MODELS = [FollowerDto, SubscriptionDto, TokenRefreshDto, BillingStatusDto, VideoChunkDto];

const NO_INPUT = { type: 'object', properties: {}, additionalProperties: false };

/** One tool per REST operation (same fields in, same fields out), plus the five that exist only here. */
export const TOOLS: ToolDefinition[] = [
  {
    name: 'get_status',
    platform: true,
    rest: 'GET /api/v1/status',
    description: 'Connection state, token expiry, webhook subscription, counts, rate limits and the work queue of the account.',
    run: async (c) => (c.none(), c.get(StatusController).get(c.account)),
  },
  {
    name: 'list_posts',
    platform: true,
    rest: 'GET /api/v1/posts',
    description: 'Latest posts and reels with the automations attached to each (limit 1..50, default 12).',
    run: async (c) => c.get(PostsController).list(c.account, await c.query(ListPostsQueryDto)),
  },
  {
    name: 'list_comments',
    platform: true,
    rest: 'GET /api/v1/posts/{id}/comments',
    description: 'Comments of a post with answered / answered_by (limit 1..100, default 50).',
    run: async (c) => c.get(PostsController).comments(c.account, await c.param('id', new MediaIdPipe()), await c.query(ListCommentsQueryDto)),
  },
  {
    name: 'list_automations',
    rest: 'GET /api/v1/automations',
    description: 'Every automation as AutomationSummary (status, posts, reel_status, counters).',
    run: async (c) => (c.none(), c.get(AutomationsController).list(c.account)),
  },
  {
    name: 'create_automation',
    rest: 'POST /api/v1/automations',
    description: 'Creates an automation (status draft until go_live); the fields of AutomationInput. Answers {automation, preview, notes}.',
    run: async (c) => c.get(AutomationsController).create(c.account, await c.body(AutomationInputDto)),
  },
  {
    name: 'get_automation',
    rest: 'GET /api/v1/automations/{id}',
    description: 'One automation with every field.',
    run: async (c) => c.get(AutomationsController).get(c.account, await c.id()),
  },
  {
    name: 'update_automation',
    hints: { destructiveHint: true, idempotentHint: true },
    rest: 'PATCH /api/v1/automations/{id}',
    description: 'Changes the given AutomationInput fields of automation `id` (same rules as create).',
    run: async (c) => {
      const id = await c.id();
      return c.get(AutomationsController).update(c.account, id, await c.body(AutomationInputDto));
    },
  },
  {
    name: 'delete_automation',
    hints: { destructiveHint: true, idempotentHint: true },
    rest: 'DELETE /api/v1/automations/{id}',
    description: 'Deletes an automation and its runs. Answers {} (the REST operation answers 204 without a body).',
    run: async (c) => {
      const id = await c.id();
      c.none();
      await c.get(AutomationsController).remove(c.account, id);
      return {};
    },
  },
  {
    name: 'go_live',
    hints: { idempotentHint: true },
    rest: 'POST /api/v1/automations/{id}/go_live',
    description: 'draft → active: the automation starts answering.',
    run: async (c) => {
      const id = await c.id();
      return c.none(), c.get(AutomationsController).goLive(c.account, id);
    },
  },
  {
    name: 'pause_automation',
    hints: { idempotentHint: true },
    rest: 'POST /api/v1/automations/{id}/pause',
    description: 'active → paused (stops answering).',
    run: async (c) => {
      const id = await c.id();
      return c.none(), c.get(AutomationsController).pause(c.account, id);
    },
  },
  {
    name: 'resume_automation',
    hints: { idempotentHint: true },
    rest: 'POST /api/v1/automations/{id}/resume',
    description: 'paused → active (answers again).',
    run: async (c) => {
      const id = await c.id();
      return c.none(), c.get(AutomationsController).resume(c.account, id);
    },
  },
  {
    name: 'finish_migration',
    hints: { idempotentHint: true },
    rest: 'POST /api/v1/automations/{id}/finish_migration',
    description: 'Ends transition mode of an imported automation (follower check, button, email and reminder apply again).',
    run: async (c) => {
      const id = await c.id();
      return c.none(), c.get(AutomationsController).finishMigration(c.account, id);
    },
  },
  {
    name: 'attach_automation_to_reel',
    hints: { idempotentHint: true },
    platform: true,
    rest: 'POST /api/v1/automations/{id}/attach',
    description: 'Confirms the suggested reel (reel_suggestion) of a waiting next_post automation; optional media_id must equal the suggestion.',
    run: async (c) => {
      const id = await c.id();
      return c.get(AutomationsController).attach(c.account, id, await c.body(AttachDto));
    },
  },
  {
    name: 'import_automations',
    rest: 'POST /api/v1/automations/import',
    description: 'Imports automations (as drafts in transition mode) and contacts from another tool, all or nothing.',
    run: async (c) => c.get(ImportsController).import(c.account, await c.body(ImportRequestDto)),
  },
  {
    name: 'get_funnel',
    rest: 'GET /api/v1/automations/{id}/funnel',
    description: 'Funnel counters of one automation.',
    run: async (c) => {
      const id = await c.id();
      return c.none(), c.get(AutomationsController).funnel(c.account, id);
    },
  },
  {
    name: 'list_funnels',
    rest: 'GET /api/v1/funnel',
    description: 'Funnel of every automation plus a total row (id null).',
    run: async (c) => (c.none(), c.get(AutomationsController).funnels(c.account)),
  },
  {
    name: 'list_contacts',
    rest: 'GET /api/v1/contacts',
    description: 'Contacts (search, tag, limit, cursor): {data, next_cursor}.',
    run: async (c) => c.get(ContactsController).list(c.account, await c.query(ListContactsQueryDto)),
  },
  {
    name: 'get_contact',
    rest: 'GET /api/v1/contacts/{ig_id}',
    description: 'One contact by ig_id.',
    run: async (c) => {
      const igId = await c.param('ig_id');
      return c.none(), c.get(ContactsController).get(c.account, igId);
    },
  },
  {
    name: 'update_contact',
    hints: { destructiveHint: true, idempotentHint: true },
    rest: 'PATCH /api/v1/contacts/{ig_id}',
    description: 'Changes tags (replaced), notes or email of a contact.',
    run: async (c) => {
      const igId = await c.param('ig_id');
      return c.get(ContactsController).update(c.account, igId, await c.body(UpdateContactDto));
    },
  },
  {
    name: 'list_events',
    rest: 'GET /api/v1/events',
    description: 'Activity log, newest first (kind, automation_id, limit, cursor): {data, next_cursor}.',
    run: async (c) => c.get(EventsController).list(c.account, await c.query(ListEventsQueryDto)),
  },
  {
    name: 'preview',
    hints: { readOnlyHint: true, idempotentHint: true },
    rest: 'POST /api/v1/preview',
    description: 'Which automation would react to a text, and the exact messages it would send. Sends nothing.',
    run: async (c) => c.get(PreviewController).preview(c.account, await c.body(PreviewRequestDto)),
  },
  {
    name: 'upload_video',
    rest: 'POST /api/v1/videos',
    description:
      'Stores a video for source {video_id} of a reel or planned post; answers as POST /api/v1/videos. The REST operation takes the file as the request body; ' +
      'a tool call carries JSON (at most 1 MB), so give exactly one of: `content_base64` (a small file, up to ~700 KB), `video_url` (the service downloads the file, ' +
      'up to VIDEO_MAX_MB), or `upload_id` (finishes a file sent in pieces with upload_video_chunk).',
    inputSchema: {
      type: 'object',
      properties: {
        content_base64: { type: 'string', description: 'The video file, base64' },
        video_url: { type: 'string', description: 'https URL of the video file' },
        upload_id: { type: 'string', format: 'uuid', description: 'An upload sent with upload_video_chunk' },
        content_type: { type: 'string', enum: [...VIDEO_CONTENT_TYPES] },
      },
      additionalProperties: false,
    },
    run: async (c) => {
      const input = await c.body(UploadVideoToolDto);
      const given = [input.content_base64, input.video_url, input.upload_id].filter((v) => v !== undefined).length;
      if (given !== 1) throw new ApiError(400, 'VALIDATION_ERROR', 'Give exactly one of content_base64, video_url and upload_id');
      const videos = c.get(VideosService);
      if (input.video_url) return videos.storeFromUrl(c.account.id, input.video_url, input.content_type);
      if (input.upload_id) return videos.finishChunked(c.account.id, input.upload_id, input.content_type);
      return videos.storeBase64(c.account.id, input.content_base64!, input.content_type);
    },
  },
  {
    name: 'list_reels',
    rest: 'GET /api/v1/reels',
    description: 'Scheduled reels, newest first (status, limit).',
    run: async (c) => c.get(ReelsController).list(c.account, await c.query(ListReelsQueryDto)),
  },
  {
    name: 'create_reel',
    rest: 'POST /api/v1/reels',
    description: 'Schedules a reel: publish_at, caption, source {video_url} or {video_id}, trial, share_to_feed, optional next_post automation_id.',
    run: async (c) => c.get(ReelsController).create(c.account, await c.body(CreateReelDto)),
  },
  {
    name: 'get_reel',
    rest: 'GET /api/v1/reels/{id}',
    description: 'One scheduled reel with its status, container status, media id and error.',
    run: async (c) => {
      const id = await c.id();
      return c.none(), c.get(ReelsController).get(c.account, id);
    },
  },
  {
    name: 'cancel_reel',
    hints: { destructiveHint: true, idempotentHint: true },
    rest: 'POST /api/v1/reels/{id}/cancel',
    description: 'Cancels a reel that is not being published yet.',
    run: async (c) => {
      const id = await c.id();
      return c.none(), c.get(ReelsController).cancel(c.account, id);
    },
  },
  {
    name: 'list_planned_posts',
    rest: 'GET /api/v1/planned_posts',
    description: 'Planned posts with per-target status, newest first (status, limit).',
    run: async (c) => c.get(PlannedPostsController).list(c.account, await c.query(ListPlannedPostsQueryDto)),
  },
  {
    name: 'create_planned_post',
    rest: 'POST /api/v1/planned_posts',
    description: 'Plans one post to instagram and/or youtube; a repeated idempotency_key answers the first post with duplicate: true.',
    run: async (c) => c.get(PlannedPostsService).create(c.account.id, await c.body(CreatePlannedPostDto)),
  },
  {
    name: 'get_planned_post',
    rest: 'GET /api/v1/planned_posts/{id}',
    description: 'One planned post with its targets.',
    run: async (c) => {
      const id = await c.id();
      return c.none(), c.get(PlannedPostsController).get(c.account, id);
    },
  },
  {
    name: 'cancel_planned_post',
    hints: { destructiveHint: true, idempotentHint: true },
    rest: 'POST /api/v1/planned_posts/{id}/cancel',
    description: 'Cancels a planned post none of whose targets started publishing.',
    run: async (c) => {
      const id = await c.id();
      return c.none(), c.get(PlannedPostsController).cancel(c.account, id);
    },
  },
  // ── only here ──────────────────────────────────────────────────────────────────────────────
  {
    name: 'upload_video_chunk',
    output: 'VideoChunkDto',
    description:
      'Sends a large video in pieces (each call carries JSON of at most 1 MB: up to ~700 KB of video base64): the first chunk at offset 0 without upload_id starts an upload, ' +
      'each next one goes at the received_bytes of the previous answer with its upload_id (a chunk sent again is accepted); then upload_video {upload_id} stores the file.',
    inputSchema: {
      type: 'object',
      properties: {
        upload_id: { type: 'string', format: 'uuid' },
        offset: { type: 'integer', minimum: 0 },
        chunk_base64: { type: 'string' },
      },
      required: ['offset', 'chunk_base64'],
      additionalProperties: false,
    },
    hints: { idempotentHint: true },
    run: async (c) => {
      const input = await c.body(UploadVideoChunkDto);
      return c.get(VideosService).appendChunk(c.account.id, input.upload_id, input.offset, Buffer.from(input.chunk_base64, 'base64'));
    },
  },
  {
    name: 'check_follower',
    output: 'FollowerDto',
    hints: { idempotentHint: true },
    platform: true,
    description: 'Whether a person follows the account (needs their consent: they messaged or tapped a button); stored on their contact. follows: 1, 0 or null.',
    inputSchema: { type: 'object', properties: { ig_id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,100}$' } }, required: ['ig_id'], additionalProperties: false },
    run: async (c) => c.get(PlatformToolsService).checkFollower(c.account, (await c.body(CheckFollowerDto)).ig_id),
  },
  {
    name: 'subscribe_webhooks',
    output: 'SubscriptionDto',
    hints: { idempotentHint: true },
    platform: true,
    description: 'Subscribes the app to the account’s webhook fields (default comments, messages, messaging_postbacks) and reads the subscription back.',
    inputSchema: { type: 'object', properties: { fields: { type: 'array', minItems: 1, items: { type: 'string', enum: [...WEBHOOK_FIELDS] } } }, additionalProperties: false },
    run: async (c) => c.get(PlatformToolsService).subscribeWebhooks(c.account, (await c.body(SubscribeWebhooksDto)).fields),
  },
  {
    name: 'refresh_token',
    output: 'TokenRefreshDto',
    platform: true,
    description: 'Refreshes the long-lived platform token now (it must be at least 24 hours old) and stores the new expiry (shown by get_status).',
    inputSchema: NO_INPUT,
    run: async (c) => (c.none(), c.get(TokensService).refresh(c.account)),
  },
  {
    name: 'billing_status',
    output: 'BillingStatusDto',
    hints: { readOnlyHint: true, idempotentHint: true },
    description: 'The plan and its usage this month: runs, messages sent and automations against the plan limits.',
    inputSchema: NO_INPUT,
    run: async (c) => (c.none(), c.get(BillingService).status(c.account.id)),
  },
];
