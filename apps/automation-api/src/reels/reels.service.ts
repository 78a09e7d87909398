import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { AutomationsService } from '../automations/automations.service';
import { VideosService, toVideoDto, type VideoRow } from '../videos/videos.service';
import type { CreateReelDto, ListReelsQueryDto, ReelDto, ReelSourceDto, VideoSourceInputDto } from './dto/reel.dto';
import { ReelsRepository, type NewReel, type ReelRow, type ReelSource } from './reels.repository';
import { ReelPublisher } from './reel.publisher';

function notFound(id: number): ApiError {
  return new ApiError(404, 'NOT_FOUND', `Reel ${id} not found`, { suggestion: 'GET /api/v1/reels lists the reels of this account.' });
}

function invalid(message: string): ApiError {
  return new ApiError(400, 'VALIDATION_ERROR', message);
}

/** Scheduled reels: create (from a video_url or an uploaded video), list, get, cancel. */
@Injectable()
export class ReelsService {
  constructor(
    private readonly reels: ReelsRepository,
    private readonly videos: VideosService,
    private readonly automations: AutomationsService,
    private readonly publisher: ReelPublisher,
  ) {}

  /** Checks a `source` (exactly one of video_url and video_id, an own uploaded video). */
  async source(accountId: number, input: VideoSourceInputDto, field = 'source'): Promise<ReelSource> {
    const hasUrl = input.video_url !== undefined;
    const hasId = input.video_id !== undefined;
    if (hasUrl === hasId) throw invalid(`${field} takes exactly one of video_url and video_id`);
    if (hasUrl) return { video_url: input.video_url! };
    const video = await this.videos.find(accountId, input.video_id!);
    if (!video) throw invalid(`${field}.video_id ${input.video_id} is not an uploaded video of this account (POST /videos)`);
    return { video_id: video.id };
  }

  async create(accountId: number, input: CreateReelDto): Promise<ReelDto> {
    const source = await this.source(accountId, input.source);
    const automationId = input.automation_id ?? null;
    if (automationId !== null) await this.checkAutomation(accountId, automationId);
    let row: ReelRow;
    try {
      row = await this.reels.insert({
        account_id: accountId,
        publish_at: new Date(input.publish_at),
        caption: input.caption,
        source,
        trial: input.trial ?? false,
        share_to_feed: input.share_to_feed ?? null,
        automation_id: automationId,
      });
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw taken(automationId!);
      throw err;
    }
    this.publisher.wake();
    return this.present(accountId, row);
  }

  /** The automation must wait for its reel (next_post, comment trigger) and not be bound to another open reel. */
  private async checkAutomation(accountId: number, id: number): Promise<void> {
    const a = await this.automations.find(accountId, id);
    if (!a) throw new ApiError(404, 'NOT_FOUND', `Automation ${id} not found`);
    if (a.trigger !== 'comment' || !a.next_post) throw invalid(`automation_id ${id} must be a next_post automation (comment trigger) that waits for this reel`);
    if (a.reel_status !== 'waiting') throw new ApiError(409, 'CONFLICT', `Automation ${id} no longer waits for a reel (reel_status ${a.reel_status})`);
    if ((await this.reels.boundReel(id)) !== null) throw taken(id);
  }

  /** Stores a scheduled reel (a planned post's Instagram target); joins the caller's transaction. The caller wakes the publisher after commit. */
  schedule(r: NewReel): Promise<ReelRow> {
    return this.reels.insert(r);
  }

  /** Automation ids bound to an open reel of the account (they wait for that reel, never for a guess). */
  boundAutomationIds(accountId: number): Promise<Set<number>> {
    return this.reels.boundAutomationIds(accountId);
  }

  /** Calls `listener` after a published reel attached its next_post automation (the scheduler then backfills its comments). */
  onReelAttached(listener: () => void): void {
    this.publisher.onAttached(listener);
  }

  async list(accountId: number, q: ListReelsQueryDto): Promise<ReelDto[]> {
    const rows = await this.reels.list(accountId, { status: q.status, limit: q.limit ?? 50 });
    const videos = await this.videos.findMany(accountId, rows.flatMap((r) => ('video_id' in r.source ? [r.source.video_id] : [])));
    return rows.map((r) => toReelDto(r, videos));
  }

  async get(accountId: number, id: number): Promise<ReelDto> {
    const row = await this.reels.find(accountId, id);
    if (!row) throw notFound(id);
    return this.present(accountId, row);
  }

  /** Cancels a reel that is not being published yet; 409 once publishing started or it ended. */
  async cancel(accountId: number, id: number): Promise<ReelDto> {
    const row = await this.reels.cancel(accountId, id);
    if (row) return this.present(accountId, row);
    const current = await this.reels.find(accountId, id);
    if (!current) throw notFound(id);
    if (current.status === 'cancelled') return this.present(accountId, current);
    throw new ApiError(409, 'CONFLICT', `Reel ${id} cannot be cancelled in status ${current.status}`);
  }

  async present(accountId: number, row: ReelRow): Promise<ReelDto> {
    const videos = 'video_id' in row.source ? await this.videos.findMany(accountId, [row.source.video_id]) : new Map<string, VideoRow>();
    return toReelDto(row, videos);
  }
}

function taken(automationId: number): ApiError {
  return new ApiError(409, 'CONFLICT', `Automation ${automationId} is already bound to another scheduled reel`);
}

export function sourceDto(source: ReelSource, videos: Map<string, VideoRow>): ReelSourceDto {
  if ('video_url' in source) return { video_url: source.video_url };
  const v = videos.get(source.video_id);
  const dto = v ? toVideoDto(v) : null;
  return { video_id: source.video_id, size_mb: dto?.size_mb ?? 0, file_status: dto?.file_status ?? 'deleted' };
}

export function toReelDto(r: ReelRow, videos: Map<string, VideoRow>): ReelDto {
  return {
    id: r.id,
    status: r.status,
    publish_at: r.publish_at.toISOString(),
    caption: r.caption,
    source: sourceDto(r.source, videos),
    trial: r.trial,
    share_to_feed: r.share_to_feed,
    automation_id: r.automation_id,
    container_status: r.container_status,
    media_id: r.media_id,
    permalink: r.permalink,
    published_at: r.published_at ? r.published_at.toISOString() : null,
    error: r.error,
    created_at: r.created_at.toISOString(),
  };
}
