import { Injectable } from '@nestjs/common';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { coversPost, isLive } from '../automations/automation.presenter';
import { AutomationsService } from '../automations/automations.service';
import type { AutomationEntity } from '../automations/entities/automation.entity';
import { ApiError } from '@platform/errors';
import { GraphApiError } from '../graph/graph-api.error';
import { GraphService } from '../graph/graph.service';
import type { GraphComment, GraphMedia } from '../graph/graph-client';
import { RunsService } from '../runs/runs.service';
import type { CommentDto, PostDto } from './dto/post.dto';

/** The value of Comment.answered_by for the service itself: its own name. */
export const SERVICE_MARKER = 'automation-api';

const FIVE_MINUTES = 5 * 60_000;
const DAY = 24 * 3_600_000;

/** Graph writes `+0000`; make it ISO 8601 that Date parses everywhere. */
export function graphTime(ts: string | undefined): string {
  if (!ts) return new Date(0).toISOString();
  const d = new Date(ts.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(d.getTime()) ? ts : d.toISOString();
}

export function postType(m: GraphMedia): string {
  if (m.media_product_type === 'REELS') return 'reel';
  if (m.media_product_type === 'STORY') return 'story';
  if (m.media_type === 'VIDEO') return 'video';
  if (m.media_type === 'CAROUSEL_ALBUM') return 'carousel';
  return 'image';
}

/** A reel online ≥ 5 minutes and ≤ 24 hours without a live automation covering it. */
export function automationMissing(m: GraphMedia, automations: AutomationEntity[], now: number): boolean {
  if (m.media_product_type !== 'REELS') return false;
  const age = now - Date.parse(graphTime(m.timestamp));
  if (!(age >= FIVE_MINUTES && age <= DAY)) return false;
  return !automations.some((a) => isLive(a) && coversPost(a, m.id));
}

export function toPostDto(m: GraphMedia, automations: AutomationEntity[], now: number): PostDto {
  return {
    id: m.id,
    type: postType(m),
    date: graphTime(m.timestamp),
    caption: m.caption ?? '',
    link: m.permalink ?? '',
    comments_count: m.comments_count ?? 0,
    likes: m.like_count ?? 0,
    thumbnail: (m.media_type === 'VIDEO' ? (m.thumbnail_url ?? m.media_url) : m.media_url) ?? null,
    automations: automations.filter((a) => coversPost(a, m.id)).map((a) => a.name),
    automation_missing: automationMissing(m, automations, now),
  };
}

@Injectable()
export class PostsService {
  constructor(
    private readonly graph: GraphService,
    private readonly automations: AutomationsService,
    private readonly runs: RunsService,
  ) {}

  async list(account: AccountEntity, limit: number): Promise<PostDto[]> {
    const media = await this.graph.client(account).listRecentMedia(limit);
    const automations = await this.automations.entities(account.id);
    const now = Date.now();
    return media.map((m) => toPostDto(m, automations, now));
  }

  async comments(account: AccountEntity, mediaId: string, limit: number): Promise<CommentDto[]> {
    const client = this.graph.client(account);
    const page = await client.listComments(mediaId, { limit }).catch((err: unknown) => {
      if (err instanceof GraphApiError && err.objectMissing) {
        throw new ApiError(404, 'NOT_FOUND', `Post ${mediaId} not found`, { suggestion: 'GET /api/v1/posts lists the posts of this account with their ids.' });
      }
      throw err;
    });
    const accountId = account.ig_user_id ?? (await client.getAccount()).user_id ?? null;
    const answers = await this.runs.serviceAnswers(account.id, page.data.map((c) => c.id));
    return page.data.map((c) => toCommentDto(c, accountId, answers.answeredComments, answers.ownReplyIds));
  }
}

export function toCommentDto(c: GraphComment, accountIgId: string | null, answered: Set<string>, ownReplyIds: Set<string>): CommentDto {
  const accountReplies = (c.replies?.data ?? []).filter((r) => accountIgId !== null && r.from?.id === accountIgId);
  let answeredBy: string | null = null;
  if (answered.has(c.id) || accountReplies.some((r) => ownReplyIds.has(r.id))) answeredBy = SERVICE_MARKER;
  else if (accountReplies.length > 0) answeredBy = 'other';
  return {
    id: c.id,
    user: c.from?.username ?? c.username ?? '',
    user_id: c.from?.id ?? '',
    text: c.text ?? '',
    timestamp: graphTime(c.timestamp),
    answered: answeredBy !== null,
    answered_by: answeredBy,
  };
}
