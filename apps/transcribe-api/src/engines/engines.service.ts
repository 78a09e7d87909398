import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown } from '@nestjs/common';
import { REDIS_CLIENT, RedisSemaphore } from '@platform/rate-limit';
import type Redis from 'ioredis';
import { TranscribeConfig } from '../config';
import { ENGINES, QUEUES, type EngineName } from '../transcription/job-record';
import { ConcurrencyGate, type SyncGate } from './concurrency-gate';
import { EngineClient, type EngineProtocol } from './engine-client';
import { SharedConcurrencyGate } from './shared-gate';

export type EngineHealth = 'healthy' | 'unhealthy' | 'not_configured';

/** One engine's settings, read from its variables (`WHISPER_*` or `FASTER_WHISPER_*`). */
export interface EngineSettings {
  url?: string;
  model: string;
  protocol: EngineProtocol;
  apiKey?: string;
  diarization: boolean;
  syncConcurrency: number;
  workerConcurrency: number;
}

export function engineSettings(config: TranscribeConfig, engine: EngineName): EngineSettings {
  return engine === 'whisper'
    ? {
        url: config.WHISPER_URL,
        model: config.WHISPER_MODEL,
        protocol: config.WHISPER_PROTOCOL,
        apiKey: config.WHISPER_API_KEY,
        diarization: config.WHISPER_DIARIZATION,
        syncConcurrency: config.WHISPER_SYNC_CONCURRENCY,
        workerConcurrency: config.WHISPER_WORKER_CONCURRENCY ?? config.TRANSCRIBE_WORKER_CONCURRENCY,
      }
    : {
        url: config.FASTER_WHISPER_URL,
        model: config.FASTER_WHISPER_MODEL,
        protocol: config.FASTER_WHISPER_PROTOCOL,
        apiKey: config.FASTER_WHISPER_API_KEY,
        diarization: config.FASTER_WHISPER_DIARIZATION,
        syncConcurrency: config.FASTER_WHISPER_SYNC_CONCURRENCY,
        workerConcurrency: config.FASTER_WHISPER_WORKER_CONCURRENCY ?? config.TRANSCRIBE_WORKER_CONCURRENCY,
      };
}

/**
 * The two engine clients, built from WHISPER_* and FASTER_WHISPER_* (absent when the URL is unset),
 * and per engine the gate that bounds the synchronous calls it is sent: shared by every API process
 * through Redis (the app's REDIS_CLIENT, keys `<REDIS_KEY_PREFIX>sync:<engine>:`) when REDIS_URL is
 * set, else this process's own.
 */
@Injectable()
export class EnginesService implements OnApplicationShutdown {
  private readonly logger = new Logger(EnginesService.name);
  private readonly clients = new Map<EngineName, EngineClient>();
  private readonly gates = new Map<EngineName, SyncGate>();

  constructor(
    private readonly config: TranscribeConfig,
    @Optional() @Inject(REDIS_CLIENT) redis: Redis | null = null,
  ) {
    for (const engine of ENGINES) {
      const settings = engineSettings(config, engine);
      const bound = {
        limit: settings.syncConcurrency,
        queueSize: config.TRANSCRIBE_SYNC_QUEUE_SIZE,
        maxWaitMs: config.TRANSCRIBE_SYNC_MAX_WAIT_SECONDS * 1000,
        defaultCallSeconds: QUEUES[engine].defaultJobSeconds,
      };
      const own = new ConcurrencyGate(bound);
      this.gates.set(
        engine,
        redis
          ? new SharedConcurrencyGate(new RedisSemaphore(redis, { key: `${config.REDIS_KEY_PREFIX}sync:${engine}:`, limit: bound.limit, queueSize: bound.queueSize, timeoutMs: config.TRANSCRIBE_REDIS_TIMEOUT_MS }), own, {
              ...bound,
              onRedisError: (err) => this.logger.warn(`the shared bound on ${engine}'s synchronous calls is unreachable, this process's own bound applies: ${String(err)}`),
            })
          : own,
      );
      if (!settings.url) continue;
      this.clients.set(
        engine,
        new EngineClient({
          engine,
          baseUrl: settings.url,
          model: settings.model,
          protocol: settings.protocol,
          apiKey: settings.apiKey,
          diarization: settings.diarization,
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

  /** The bound on the synchronous calls to `engine`. */
  gate(engine: EngineName): SyncGate {
    return this.gates.get(engine)!;
  }

  settings(engine: EngineName): EngineSettings {
    return engineSettings(this.config, engine);
  }

  /** What the engine honours beyond language and task, for GET / (empty when not configured). */
  capabilityNames(engine: EngineName): string[] {
    const client = this.clients.get(engine);
    if (!client) return [];
    const { vadFilter, diarize, languageConfidence } = client.capabilities;
    return ['word_timestamps', 'initial_prompt', 'translate', ...(vadFilter ? ['vad_filter'] : []), ...(diarize ? ['diarize'] : []), ...(languageConfidence ? ['language_confidence'] : [])];
  }

  model(engine: EngineName): string {
    return this.settings(engine).model;
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
