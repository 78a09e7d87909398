import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { AccountsService } from '../accounts/accounts.service';
import { ReelsService, sourceDto } from '../reels/reels.service';
import { VideosService } from '../videos/videos.service';
import { YouTubeService } from '../youtube/youtube.service';
import type { CreatePlannedPostDto, ListPlannedPostsQueryDto, PlannedPostDto } from './dto/planned-post.dto';
import { PlannedPostsRepository, type Platform, type PlannedPostRow, type TargetRow } from './planned-posts.repository';
import { PlannedPostsWorker, youtubeTitle } from './planned-posts.worker';

function invalid(message: string): ApiError {
  return new ApiError(400, 'VALIDATION_ERROR', message);
}

function notFound(id: number): ApiError {
  return new ApiError(404, 'NOT_FOUND', `Planned post ${id} not found`, { suggestion: 'GET /api/v1/planned_posts lists the planned posts of this account.' });
}

/** One post to several platforms: creation by idempotency key, reads, cancel. The worker publishes. */
@Injectable()
export class PlannedPostsService {
  constructor(
    private readonly posts: PlannedPostsRepository,
    private readonly reels: ReelsService,
    private readonly videos: VideosService,
    private readonly accounts: AccountsService,
    private readonly youtube: YouTubeService,
    private readonly worker: PlannedPostsWorker,
    private readonly transactions: Transactions,
  ) {}

  async create(accountId: number, input: CreatePlannedPostDto): Promise<PlannedPostDto> {
    const platforms = input.targets.map((t) => t.platform as Platform);
    if (new Set(platforms).size !== platforms.length) throw invalid('targets must name each platform once');
    const source = await this.reels.source(accountId, input.source);
    const notes: string[] = [];
    if (platforms.includes('youtube')) {
      const account = await this.accounts.findById(accountId);
      if (!this.youtube.configured || !account?.youtube_refresh_token) {
        throw invalid('targets: youtube is not connected for this account (YOUTUBE_CLIENT_ID, YOUTUBE_CLIENT_SECRET and the channel’s YOUTUBE_REFRESH_TOKEN)');
      }
      if (!input.title) notes.push(`youtube: no title given, the caption's first line is used: "${youtubeTitle(null, input.caption)}"`);
      if ('video_url' in source) notes.push('youtube: the video is downloaded from video_url at publish time and uploaded with the resumable protocol');
    }
    if (platforms.includes('instagram')) notes.push('instagram: published as a reel (container → status → publish); its status follows GET /reels');
    const publishAt = new Date(input.publish_at);
    const { id, created } = await this.transactions.transaction(() =>
      this.posts.create({
        account_id: accountId,
        publish_at: publishAt,
        source,
        caption: input.caption,
        title: input.title ?? null,
        idempotency_key: input.idempotency_key ?? null,
        notes,
        targets: input.targets.map((t) => ({ platform: t.platform as Platform, publish_at: t.publish_at ? new Date(t.publish_at) : publishAt })),
      }),
    );
    if (created) this.worker.wake();
    return this.get(accountId, id, !created);
  }

  async list(accountId: number, q: ListPlannedPostsQueryDto): Promise<PlannedPostDto[]> {
    const rows = await this.posts.list(accountId, { status: q.status, limit: q.limit ?? 50 });
    return this.present(accountId, rows);
  }

  async get(accountId: number, id: number, duplicate = false): Promise<PlannedPostDto> {
    const row = await this.posts.find(accountId, id);
    if (!row) throw notFound(id);
    const [dto] = await this.present(accountId, [row]);
    return { ...dto, duplicate };
  }

  /** Cancels a post none of whose targets started; 409 once one did. Idempotent. */
  async cancel(accountId: number, id: number): Promise<PlannedPostDto> {
    const cancelled = await this.transactions.transaction(() => this.posts.cancel(accountId, id));
    const post = await this.get(accountId, id);
    if (!cancelled && post.status !== 'cancelled') throw new ApiError(409, 'CONFLICT', `Planned post ${id} cannot be cancelled: status ${post.status}, publishing has started`);
    return post;
  }

  private async present(accountId: number, rows: PlannedPostRow[]): Promise<PlannedPostDto[]> {
    const [targets, videos] = await Promise.all([
      this.posts.targetsOf(rows.map((r) => r.id)),
      this.videos.findMany(accountId, rows.flatMap((r) => ('video_id' in r.source ? [r.source.video_id] : []))),
    ]);
    const byPost = new Map<number, TargetRow[]>();
    for (const t of targets) byPost.set(t.planned_post_id, [...(byPost.get(t.planned_post_id) ?? []), t]);
    return rows.map((r) => ({
      id: r.id,
      status: r.status,
      publish_at: r.publish_at.toISOString(),
      source: sourceDto(r.source, videos),
      caption: r.caption,
      title: r.title,
      idempotency_key: r.idempotency_key,
      targets: (byPost.get(r.id) ?? []).map((t) => ({
        platform: t.platform,
        id: t.id,
        status: t.status,
        publish_at: t.publish_at.toISOString(),
        permalink: t.permalink,
        external_id: t.external_id,
        published_at: t.published_at ? t.published_at.toISOString() : null,
        error: t.error,
      })),
      duplicate: false,
      notes: r.notes,
      created_at: r.created_at.toISOString(),
    }));
  }
}
