import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Agent } from 'undici';
import { AutomationConfig } from '../config';
import { YouTubeClient } from './youtube-client';

/** The YouTube client configured from YOUTUBE_*; `configured` is false without client id and secret. */
@Injectable()
export class YouTubeService implements OnApplicationShutdown {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000 });
  readonly client: YouTubeClient;

  constructor(@Inject(AutomationConfig) private readonly config: AutomationConfig) {
    this.client = new YouTubeClient(
      {
        apiUrl: config.YOUTUBE_API_URL,
        tokenUrl: config.YOUTUBE_TOKEN_URL,
        clientId: config.YOUTUBE_CLIENT_ID ?? '',
        clientSecret: config.YOUTUBE_CLIENT_SECRET ?? '',
        timeoutMs: Math.max(config.GRAPH_TIMEOUT_MS, 30_000),
        chunkBytes: config.YOUTUBE_CHUNK_BYTES,
      },
      this.agent,
    );
  }

  get configured(): boolean {
    return Boolean(this.config.YOUTUBE_CLIENT_ID && this.config.YOUTUBE_CLIENT_SECRET);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent.close();
  }
}
