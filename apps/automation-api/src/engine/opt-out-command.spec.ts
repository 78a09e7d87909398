import { optCommand, parseKeywordList } from './opt-out-command';

describe('optCommand', () => {
  const stop = parseKeywordList('stop, Unsubscribe ,,STOPP');
  const start = parseKeywordList('start');
  it('normalises the configured list', () => expect(stop).toEqual(['stop', 'unsubscribe', 'stopp']));
  it.each([
    ['STOP', 'stop'],
    [' stop! ', 'stop'],
    ['Unsubscribe.', 'stop'],
    ['🛑 STOPP', 'stop'],
    ['Start', 'start'],
    ['stop sending me things', null],
    ['please stop', null],
    ['', null],
    ['!!!', null],
    [null, null],
  ] as Array<[string | null, string | null]>)('%p → %p', (text, expected) => {
    expect(optCommand(text, stop, start)).toBe(expected);
  });
});
