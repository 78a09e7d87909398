import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { TranscribeConfig } from '../config';
import { ENGINES, type EngineName } from '../jobs/job-record';
import { EngineClient } from './engine-client';

export type EngineHealth = 'healthy' | 'unhealthy' | 'not_configured';

/** The two engine clients, built from WHISPER_URL and FASTER_WHISPER_URL (absent when unset). */
@Injectable()
export class EnginesService implements OnApplicationShutdown {
  private readonly clients = new Map<EngineName, EngineClient>();

  constructor(private readonly config: TranscribeConfig) {
    const urls: Record<EngineName, [string | undefined, string]> = {
      whisper: [config.WHISPER_URL, config.WHISPER_MODEL],
      'faster-whisper': [config.FASTER_WHISPER_URL, config.FASTER_WHISPER_MODEL],
    };
    for (const engine of ENGINES) {
      const [url, model] = urls[engine];
      if (!url) continue;
      this.clients.set(
        engine,
        new EngineClient({
          engine,
          baseUrl: url,
          model,
          timeoutMs: config.TRANSCRIBE_ENGINE_TIMEOUT_SECONDS * 1000,
          attempts: config.TRANSCRIBE_ENGINE_ATTEMPTS,
          retryBaseMs: config.TRANSCRIBE_ENGINE_RETRY_BASE_MS,
        }),
      );
    }
  }

  /** The client of `engine`, or undefined when its URL is not configured. */
  client(engine: EngineName): EngineClient | undefined {
    return this.clients.get(engine);
  }

  model(engine: EngineName): string {
    return engine === 'whisper' ? this.config.WHISPER_MODEL : this.config.FASTER_WHISPER_MODEL;
  }

  /** The variable that configures `engine`, for error messages. */
  static variableOf(engine: EngineName): string {
    return engine === 'whisper' ? 'WHISPER_URL' : 'FASTER_WHISPER_URL';
  }

  async health(engine: EngineName): Promise<EngineHealth> {
    const client = this.clients.get(engine);
    if (!client) return 'not_configured';
    try {
      await client.check();
      return 'healthy';
    } catch {
      return 'unhealthy';
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.clients.values()].map((c) => c.close()));
  }
}
