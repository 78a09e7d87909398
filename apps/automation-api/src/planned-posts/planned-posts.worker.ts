import { Inject, Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { safeFetch } from '@platform/http-safety';
import { AccountsService } from '../accounts/accounts.service';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { bufferBytes, VideosService, type VideoBytes } from '../videos/videos.service';
import { YouTubeApiError } from '../youtube/youtube-client';
import { YouTubeService } from '../youtube/youtube.service';
import { HandTargetToReel } from './hand-target-to-reel';
import { PlannedPostsRepository, type TargetRow } from './planned-posts.repository';
import { retryDelayMs } from '../common/retry-delay';
import { outboundPermission } from '../common/outbound-policy';

/** A failure that retrying cannot fix. */
class TargetFailure extends Error {}

/**
 * Publishes the targets of planned posts at their time (claimDue with a lease: one replica per target):
 * - **instagram**: a scheduled reel is created for the target (same transaction as the hand-over), and
 *   the reel publisher takes it through the content-publishing flow; the target then follows its
 *   reel's end state (published / failed with the platform's error / cancelled).
 * - **youtube**: the video (stored, or downloaded from video_url through http-safety) is uploaded
 *   with the YouTube Data API's resumable protocol; the session URI is stored first, so a replica
 *   taking over after a crash resumes that upload instead of creating a second video.
 * A post whose targets all ended becomes published, partial (some failed) or failed.
 */
@Injectable()
export class PlannedPostsWorker extends PollingWorker {
  protected readonly logger = new Logger(PlannedPostsWorker.name);

  constructor(
    private readonly posts: PlannedPostsRepository,
    private readonly handToReel: HandTargetToReel,
    private readonly videos: VideosService,
    private readonly accounts: AccountsService,
    private readonly youtube: YouTubeService,
    private readonly clock: Clock,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {
    super(config.PUBLISH_POLL_MS);
  }

  async tick(): Promise<number> {
    const now = this.clock.now();
    // A YouTube upload of a large file takes a while: the lease covers it (a crashed replica's upload resumes after it).
    const claimed = await this.posts.claimDue(now, this.config.PUBLISH_PREPARE_MINUTES, 5, 900);
    const touched = new Set<number>();
    for (const target of claimed) {
      try {
        if (target.platform === 'instagram') await this.toReel(target);
        else await this.toYouTube(target);
      } catch (err) {
        await this.failed(target, err);
      }
      touched.add(target.planned_post_id);
    }
    for (const id of await this.posts.syncFromReels()) touched.add(id);
    const settled = await this.posts.settle([...touched]);
    return claimed.length + settled;
  }

  private async toReel(t: TargetRow): Promise<void> {
    await this.handToReel.execute(t, await this.postOf(t));
  }

  private async toYouTube(t: TargetRow): Promise<void> {
    const post = await this.postOf(t);
    const account = await this.accounts.findById(t.account_id);
    if (!account?.youtube_refresh_token || !this.youtube.configured) throw new TargetFailure('YouTube is not connected for this account');
    const video = await this.bytes(t.account_id, post.source);
    const result = await this.youtube.client.upload(account.youtube_refresh_token, {
      title: youtubeTitle(post.title, post.caption),
      description: post.caption,
      privacyStatus: 'public',
      video,
      sessionUri: t.upload_url,
      onSession: (uri) => this.posts.saveUploadUrl(t.id, uri),
    });
    if ('video_id' in post.source) await this.videos.markUploaded(post.source.video_id);
    await this.posts.published(t.id, { external_id: result.id, permalink: result.permalink, published_at: this.clock.now() });
  }

  private async postOf(t: TargetRow) {
    const post = await this.posts.find(t.account_id, t.planned_post_id);
    if (!post) throw new TargetFailure('the planned post no longer exists');
    return post;
  }

  private async bytes(accountId: number, source: { video_url: string } | { video_id: string }): Promise<VideoBytes> {
    if ('video_id' in source) {
      const v = await this.videos.find(accountId, source.video_id);
      if (!v) throw new TargetFailure(`the uploaded video ${source.video_id} no longer exists`);
      return this.videos.bytes(v);
    }
    const res = await safeFetch(source.video_url, { method: 'GET' }, { ...outboundPermission(this.config, 'video_download'), maxBytes: this.videos.maxBytes, maxRedirects: 3, timeoutMs: 600_000 }).catch((err: Error) => {
      throw new TargetFailure(`cannot download video_url: ${err.message}`);
    });
    if (!res.ok) throw new TargetFailure(`cannot download video_url: HTTP ${res.status}`);
    return bufferBytes(res.body, (res.headers.get('content-type') ?? 'video/mp4').split(';')[0]);
  }

  private async failed(t: TargetRow, err: unknown): Promise<void> {
    const message = (err as Error).message;
    const attempts = t.attempts + 1;
    const retryable = err instanceof YouTubeApiError ? err.retryable : !(err instanceof TargetFailure);
    const retryAt =
      retryable && attempts < this.config.AUTOMATION_MAX_ATTEMPTS
        ? new Date(this.clock.now().getTime() + retryDelayMs(this.config.AUTOMATION_RETRY_BASE_MS, attempts))
        : null;
    if (!retryAt) this.logger.warn(`planned post ${t.planned_post_id}, ${t.platform}: ${message}`);
    await this.posts.attemptFailed(t.id, message, attempts, retryAt);
  }
}

/** The YouTube title: the given one, else the caption's first line (at most 100 characters, no < or >). */
export function youtubeTitle(title: string | undefined | null, caption: string): string {
  if (title) return title;
  const line = caption.split('\n').map((l) => l.replace(/[<>]/g, '').trim()).find(Boolean) ?? '';
  return line.slice(0, 100) || 'Video';
}
