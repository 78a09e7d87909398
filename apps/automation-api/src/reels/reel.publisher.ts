import { Inject, Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { AccountsService } from '../accounts/accounts.service';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { GraphApiError } from '../graph/graph-api.error';
import type { GraphClient } from '../graph/graph-client';
import { GraphService } from '../graph/graph.service';
import { VideosService } from '../videos/videos.service';
import { RecordPublishedReel } from './record-published-reel';
import { ReelsRepository, type ReelRow } from './reels.repository';
import { retryDelayMs } from '../common/retry-delay';

/** A platform error with its text kept for the reel's `error`. */
class ReelFailure extends Error {}

/**
 * Publishes scheduled reels through the platform's content-publishing flow, one step per claim
 * (claimDue with a lease, so one replica works on a reel at a time):
 *
 * scheduled ─▶ (uploaded file: uploading ─▶) processing ─▶ ready ─▶ publishing ─▶ published
 *                                              │ container ERROR/EXPIRED, platform error
 *                                              ▼
 *                                            failed (error = the platform's text)
 *
 * PUBLISH_PREPARE_MINUTES before publish_at it creates a REELS container (`video_url`, or
 * `upload_type=resumable` and the stored bytes to the returned upload address) and polls the
 * container's `status_code` every PUBLISH_POLL_MS; a FINISHED container waits in `ready` until
 * publish_at, is published then (`media_publish`), the permalink read, and the reel's next_post
 * automation attached by media id. Retryable platform errors (throttling, timeouts, 5xx) are
 * retried with backoff up to AUTOMATION_MAX_ATTEMPTS; other errors fail the reel with their text.
 */
@Injectable()
export class ReelPublisher extends PollingWorker {
  protected readonly logger = new Logger(ReelPublisher.name);
  private readonly attachedListeners: Array<() => void> = [];

  constructor(
    private readonly reels: ReelsRepository,
    private readonly accounts: AccountsService,
    private readonly graph: GraphService,
    private readonly videos: VideosService,
    private readonly clock: Clock,
    private readonly recordPublished: RecordPublishedReel,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {
    super(config.PUBLISH_POLL_MS);
  }

  /** `listener` runs after a published reel attached its automation (the engine's scheduler backfills the reel's comments). */
  onAttached(listener: () => void): void {
    this.attachedListeners.push(listener);
  }

  async tick(): Promise<number> {
    const now = this.clock.now();
    // Each step clears the lease; it only matters when a replica dies mid-step, and an upload of a large
    // file to the platform takes a while: 15 minutes.
    const claimed = await this.reels.claimDue(now, this.config.PUBLISH_PREPARE_MINUTES, 10, 900);
    for (const reel of claimed) {
      try {
        await this.advance(reel);
      } catch (err) {
        this.logger.warn(`reel ${reel.id}: ${(err as Error).message}`);
      }
    }
    return claimed.length;
  }

  private later(ms = this.config.PUBLISH_POLL_MS): Date {
    return new Date(this.clock.now().getTime() + ms);
  }

  private async advance(reel: ReelRow): Promise<void> {
    const account = await this.accounts.findById(reel.account_id);
    if (!account) return;
    try {
      const client = this.graph.client(account, 'background');
      switch (reel.status) {
        case 'scheduled':
        case 'uploading':
          return await this.createContainer(reel, client);
        case 'processing':
          return await this.poll(reel, client);
        case 'ready':
          return await this.publish(reel, 'ready', client);
        case 'publishing':
          return await this.resumePublishing(reel, client);
        default:
          return;
      }
    } catch (err) {
      await this.failed(reel, err);
    }
  }

  private async createContainer(reel: ReelRow, client: GraphClient): Promise<void> {
    const base = { caption: reel.caption, share_to_feed: reel.share_to_feed, trial: reel.trial };
    if ('video_url' in reel.source) {
      const container = await client.createReelContainer({ ...base, video_url: reel.source.video_url });
      await this.reels.step(reel.id, reel.status, 'processing', { container_id: container.id, container_status: 'IN_PROGRESS', polls: 0, error: null }, this.later());
      return;
    }
    const video = await this.videos.find(reel.account_id, reel.source.video_id);
    if (!video) throw new ReelFailure(`the uploaded video ${reel.source.video_id} no longer exists`);
    if (reel.status === 'scheduled' && !(await this.reels.step(reel.id, 'scheduled', 'uploading', {}))) return;
    const container = await client.createReelContainer(base);
    if (!container.uri) throw new ReelFailure('the platform answered no upload address for the resumable container');
    const bytes = this.videos.bytes(video);
    await client.uploadContainerVideo(container.uri, bytes.open(), bytes.size);
    await this.videos.markUploaded(video.id);
    await this.reels.step(reel.id, 'uploading', 'processing', { container_id: container.id, container_status: 'IN_PROGRESS', polls: 0, error: null }, this.later());
  }

  private async poll(reel: ReelRow, client: GraphClient): Promise<void> {
    const status = await client.getContainerStatus(reel.container_id!);
    const code = status.status_code ?? 'IN_PROGRESS';
    if (code === 'FINISHED') {
      // Ready before its time: it waits until publish_at (next_attempt_at), then goes online.
      const due = reel.publish_at.getTime() <= this.clock.now().getTime();
      if (!(await this.reels.step(reel.id, 'processing', 'ready', { container_status: code }, due ? undefined : reel.publish_at))) return;
      if (due) await this.publish({ ...reel, status: 'ready', container_status: code }, 'ready', client);
      return;
    }
    if (code === 'ERROR' || code === 'EXPIRED') {
      await this.reels.step(reel.id, 'processing', 'failed', { container_status: code, error: status.status ?? `container ${code}` }, this.later());
      return;
    }
    if (code === 'PUBLISHED') {
      await this.reels.step(reel.id, 'processing', 'publishing', { container_status: code });
      await this.resumePublishing({ ...reel, status: 'publishing' }, client);
      return;
    }
    const polls = reel.polls + 1;
    if (polls >= this.config.PUBLISH_MAX_POLLS) {
      await this.reels.step(reel.id, 'processing', 'failed', { container_status: code, polls, error: `the container did not finish processing after ${polls} status checks (${status.status ?? code})` }, this.later());
      return;
    }
    await this.reels.step(reel.id, 'processing', 'processing', { container_status: code, polls }, this.later());
  }

  private async publish(reel: ReelRow, from: 'ready', client: GraphClient): Promise<void> {
    if (!(await this.reels.step(reel.id, from, 'publishing', {}))) return;
    const { id: mediaId } = await client.publishContainer(reel.container_id!);
    await this.published(reel, mediaId, client);
  }

  /**
   * A reel left in `publishing` (the process died during media_publish, or it failed retryably): the
   * container says whether it went out. PUBLISHED → the newest reel with this caption is the media;
   * FINISHED → publish again.
   */
  private async resumePublishing(reel: ReelRow, client: GraphClient): Promise<void> {
    const status = await client.getContainerStatus(reel.container_id!);
    if (status.status_code === 'FINISHED') {
      const { id: mediaId } = await client.publishContainer(reel.container_id!);
      return this.published(reel, mediaId, client);
    }
    if (status.status_code === 'PUBLISHED') {
      const media = (await client.listRecentMedia(10)).find((m) => m.media_product_type === 'REELS' && (m.caption ?? '') === reel.caption);
      if (media) return this.published(reel, media.id, client);
      throw new ReelFailure('the container was published but the reel is not among the newest posts');
    }
    await this.reels.step(reel.id, 'publishing', 'failed', { container_status: status.status_code ?? null, error: status.status ?? `container ${status.status_code}` }, this.later());
  }

  private async published(reel: ReelRow, mediaId: string, client: GraphClient): Promise<void> {
    let permalink: string | null = null;
    try {
      permalink = (await client.getMedia(mediaId)).permalink ?? null;
    } catch (err) {
      this.logger.warn(`reel ${reel.id}: permalink of ${mediaId}: ${(err as Error).message}`);
    }
    const attached = await this.recordPublished.execute(reel, mediaId, permalink, this.later());
    // The scheduler answers the comments that arrived before the attachment (backfill).
    if (attached) for (const listener of this.attachedListeners) listener();
  }

  private async failed(reel: ReelRow, err: unknown): Promise<void> {
    const current = await this.reels.findById(reel.id);
    if (!current || !['scheduled', 'uploading', 'processing', 'ready', 'publishing'].includes(current.status)) return;
    const message = err instanceof GraphApiError ? err.detail : (err as Error).message;
    const attempts = current.attempts + 1;
    // Platform errors that may pass (throttling, timeouts, 5xx) and our own trouble (database, storage) are retried.
    const retryable = err instanceof GraphApiError ? err.retryable : !(err instanceof ReelFailure);
    if (retryable && attempts < this.config.AUTOMATION_MAX_ATTEMPTS) {
      const delay = retryDelayMs(this.config.AUTOMATION_RETRY_BASE_MS, attempts);
      await this.reels.step(current.id, current.status, current.status, { attempts, error: message }, this.later(delay));
      return;
    }
    await this.reels.step(current.id, current.status, 'failed', { attempts, error: message }, this.later());
  }
}
