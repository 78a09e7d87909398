import { resolveRedisKeyPrefix } from './redis-key-prefix';

describe('resolveRedisKeyPrefix', () => {
  const config = (REDIS_KEY_PREFIX: string, CONVERSATION_REDIS_KEY_PREFIX?: string) => ({ REDIS_KEY_PREFIX, CONVERSATION_REDIS_KEY_PREFIX });

  it('is REDIS_KEY_PREFIX (default conversation-api:) without the old variable, with no warning', () => {
    expect(resolveRedisKeyPrefix(config('conversation-api:'), {})).toEqual({ prefix: 'conversation-api:' });
    expect(resolveRedisKeyPrefix(config('blue:'), { REDIS_KEY_PREFIX: 'blue:' })).toEqual({ prefix: 'blue:' });
  });

  it('is the deprecated CONVERSATION_REDIS_KEY_PREFIX while REDIS_KEY_PREFIX is unset, with a warning naming REDIS_KEY_PREFIX', () => {
    for (const env of [{ CONVERSATION_REDIS_KEY_PREFIX: 'old:' }, { CONVERSATION_REDIS_KEY_PREFIX: 'old:', REDIS_KEY_PREFIX: '' }]) {
      const resolved = resolveRedisKeyPrefix(config('conversation-api:', 'old:'), env);
      expect(resolved.prefix).toBe('old:');
      expect(resolved.warning).toMatch(/CONVERSATION_REDIS_KEY_PREFIX is deprecated/);
      expect(resolved.warning).toMatch(/REDIS_KEY_PREFIX=old:/);
    }
  });

  it('ignores the old variable when REDIS_KEY_PREFIX is set (even to the default), and says so', () => {
    const resolved = resolveRedisKeyPrefix(config('conversation-api:', 'old:'), { REDIS_KEY_PREFIX: 'conversation-api:', CONVERSATION_REDIS_KEY_PREFIX: 'old:' });
    expect(resolved.prefix).toBe('conversation-api:');
    expect(resolved.warning).toMatch(/deprecated and ignored: REDIS_KEY_PREFIX/);
  });
});
