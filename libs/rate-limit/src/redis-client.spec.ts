import { redisOptions } from './redis-client';

describe('redisOptions', () => {
  it('reads host, port, credentials and database from REDIS_URL', () => {
    expect(redisOptions('redis://user:p%40ss@cache.internal:6380/3')).toEqual({
      host: 'cache.internal',
      port: 6380,
      username: 'user',
      password: 'p@ss',
      tls: undefined,
      db: 3,
      connectTimeout: 5_000,
    });
  });

  it('defaults port and database, takes a password without user, and TLS for rediss://', () => {
    expect(redisOptions('rediss://:secret@[::1]')).toMatchObject({ host: '::1', port: 6379, username: undefined, password: 'secret', tls: {}, db: 0 });
  });

  it('lets overrides win (a BullMQ worker in its own database)', () => {
    expect(redisOptions('redis://r:6379/5', { db: 1, maxRetriesPerRequest: null })).toMatchObject({ host: 'r', db: 1, maxRetriesPerRequest: null });
  });

  it('refuses a database that is not a number', () => {
    expect(() => redisOptions('redis://r:6379/cache')).toThrow(/REDIS_URL names database "cache"/);
    expect(() => redisOptions('redis://r:6379/cache', { db: 1 })).not.toThrow();
  });
});
