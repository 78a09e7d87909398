import { parseFastQuery } from './fast-query';

describe('the fast path reads only the queries the DTOs accept as they are', () => {
  it.each([
    ['/api/strategies/dynamic?names=web', { kind: 'dynamic', query: { names: ['web'] } }],
    ['/api/strategies/dynamic?names=a,b&names=c&session_duration=5m&show_details=false&theme=ghost&display_name=My%20App&refresh_frequency=2s', {
      kind: 'dynamic',
      query: { names: ['a', 'b', 'c'], session_duration: '5m', show_details: false, theme: 'ghost', display_name: 'My App', refresh_frequency: '2s' },
    }],
    ['/api/strategies/blocking?group=ml&timeout=30s', { kind: 'blocking', query: { group: 'ml', timeout: '30s' } }],
  ])('%s', (url, expected) => {
    expect(parseFastQuery(url)).toEqual(expected);
  });

  it.each([
    ['/api/strategies/dynamic'],
    ['/api/strategies/dynamic/'],
    ['/api/strategies/other?names=a'],
    ['/api/strategies/dynamic?names=a&group=g'],
    ['/api/strategies/dynamic?names=A'],
    ['/api/strategies/dynamic?names=a&extra=1'],
    ['/api/strategies/dynamic?names=a&theme=x&theme=y'],
    ['/api/strategies/dynamic?names=a&session_duration=-5m'],
    ['/api/strategies/dynamic?names=a&session_duration=0s'],
    ['/api/strategies/dynamic?names=a&refresh_frequency=2h'],
    ['/api/strategies/dynamic?names=a&show_details=maybe'],
    ['/api/strategies/dynamic?names=a&display_name=' + 'x'.repeat(201)],
    ['/api/strategies/blocking?names=a&timeout=1ms'],
    ['/api/strategies/blocking?names=a&theme=ghost'],
    ['/api/strategies/dynamic?names=%E0%A4%A'],
    ['/api/strategies/dynamic?names[x]=a'],
    ['/api/strategies/dynamic?names=' + Array.from({ length: 101 }, (_, i) => `s${i}`).join(',')],
  ])('%s → left to Nest', (url) => {
    expect(parseFastQuery(url)).toBeUndefined();
  });
});
