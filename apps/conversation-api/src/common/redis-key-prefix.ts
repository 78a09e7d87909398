import { Global, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { SERVICE_ENV } from '@platform/platform';
import { ConversationApiConfig } from '../config';

/**
 * The prefix of this service's Redis keys (rate-limit counters, the Socket.IO adapter's channels):
 * REDIS_KEY_PREFIX (BaseConfig, default `conversation-api:`). The deprecated
 * CONVERSATION_REDIS_KEY_PREFIX is still honoured when REDIS_KEY_PREFIX is not set; either way a
 * set CONVERSATION_REDIS_KEY_PREFIX gets a warning that names REDIS_KEY_PREFIX.
 */
export function resolveRedisKeyPrefix(
  config: Pick<ConversationApiConfig, 'REDIS_KEY_PREFIX' | 'CONVERSATION_REDIS_KEY_PREFIX'>,
  env: Record<string, string | undefined>,
): { prefix: string; warning?: string } {
  const legacy = config.CONVERSATION_REDIS_KEY_PREFIX;
  if (!legacy) return { prefix: config.REDIS_KEY_PREFIX };
  if (env.REDIS_KEY_PREFIX) {
    return {
      prefix: config.REDIS_KEY_PREFIX,
      warning: `CONVERSATION_REDIS_KEY_PREFIX is deprecated and ignored: REDIS_KEY_PREFIX (${config.REDIS_KEY_PREFIX}) is set; remove CONVERSATION_REDIS_KEY_PREFIX`,
    };
  }
  return {
    prefix: legacy,
    warning: `CONVERSATION_REDIS_KEY_PREFIX is deprecated: set REDIS_KEY_PREFIX=${legacy} instead (the prefix of every Redis key of this service; ${legacy} is used until then)`,
  };
}

/** The resolved prefix, once per app (the deprecation warning is logged when it is made, at start). */
@Injectable()
export class RedisKeyPrefix {
  readonly value: string;

  constructor(config: ConversationApiConfig, @Inject(SERVICE_ENV) env: Record<string, string | undefined>) {
    const { prefix, warning } = resolveRedisKeyPrefix(config, env);
    this.value = prefix;
    if (warning) new Logger('Config').warn(warning);
  }
}

@Global()
@Module({ providers: [RedisKeyPrefix], exports: [RedisKeyPrefix] })
export class RedisKeyPrefixModule {}
