import type { TranscriptionSegment } from '../transcription/job-record';
import { buildCues, formatTimestamp, READABLE, speakerName, toSrt, toText, toTsv, toVtt, VERBATIM, wrapWords } from './subtitles';
import { wordsBySegment } from './transcript-output';

const seg = (start: number, end: number, text: string, extra: Partial<TranscriptionSegment> = {}): TranscriptionSegment => ({ id: 0, start, end, text, ...extra });

describe('formatTimestamp', () => {
  it.each([
    [0, true, ',', '00:00:00,000'],
    [1.5, true, ',', '00:00:01,500'],
    [61.0004, true, '.', '00:01:01.000'],
    [59.9996, true, '.', '00:01:00.000'], // rounds to the millisecond, carrying into the minute
    [3725.25, false, '.', '01:02:05.250'], // hours shown when there are some
    [65.5, false, '.', '01:05.500'], // whisper's VTT: no hours under an hour
    [-3, true, ',', '00:00:00,000'],
    [Number.NaN, true, ',', '00:00:00,000'],
    [360000, true, ',', '100:00:00,000'],
  ])('%s s (hours always: %s, marker %s) → %s', (seconds, alwaysHours, marker, expected) => {
    expect(formatTimestamp(seconds, { alwaysHours, marker: marker as ',' | '.' })).toBe(expected);
  });
});

describe('speakerName', () => {
  it.each([
    ['SPEAKER_00', 'Speaker 1'],
    ['speaker_11', 'Speaker 12'],
    [' Alice ', 'Alice'],
  ])('%j → %j', (label, name) => expect(speakerName(label)).toBe(name));
});

describe('wrapWords', () => {
  it.each([
    [['a', 'bb', 'ccc'], 0, [['a', 'bb', 'ccc']]],
    [['a', 'bb', 'ccc'], 4, [['a', 'bb'], ['ccc']]],
    [['a', 'bb', 'ccc'], 6, [['a', 'bb'], ['ccc']]],
    [['a', 'bb', 'ccc'], 8, [['a', 'bb', 'ccc']]],
    [['supercalifragilistic', 'is', 'long'], 10, [['supercalifragilistic'], ['is', 'long']]],
    [[], 10, []],
  ])('%j at %i', (tokens, max, lines) => expect(wrapWords(tokens, max)).toEqual(lines));
});

describe('buildCues', () => {
  it.each<[string, TranscriptionSegment[], Array<{ start: number; end: number; lines: string[] }>]>([
    ['trims, collapses spaces and escapes the arrow', [seg(0, 1, '  a  -->  b ')], [{ start: 0, end: 1, lines: ['a -> b'] }]],
    ['leaves out empty segments', [seg(0, 1, '   '), seg(1, 2, 'x')], [{ start: 1, end: 2, lines: ['x'] }]],
    ['an end before its start becomes the start', [seg(5, 3, 'x')], [{ start: 5, end: 5, lines: ['x'] }]],
    ['negative times count as 0', [seg(-1, 1, 'x')], [{ start: 0, end: 1, lines: ['x'] }]],
    [
      'orders by start and ends an overlapping cue where the next begins',
      [seg(2, 4, 'second'), seg(0, 3, 'first')],
      [
        { start: 0, end: 2, lines: ['first'] },
        { start: 2, end: 4, lines: ['second'] },
      ],
    ],
    [
      'wraps at 42 characters into two lines',
      [seg(0, 4, 'The quick brown fox jumps over the lazy dog and keeps running')],
      [{ start: 0, end: 4, lines: ['The quick brown fox jumps over the lazy', 'dog and keeps running'] }],
    ],
    [
      'splits a long segment into cues of two lines, timed by characters',
      [seg(0, 10, `${'aaaa '.repeat(8)}${'bbbb '.repeat(8)}${'cccc '.repeat(8)}`)],
      [
        { start: 0, end: 6.723, lines: ['aaaa aaaa aaaa aaaa aaaa aaaa aaaa aaaa', 'bbbb bbbb bbbb bbbb bbbb bbbb bbbb bbbb'] },
        { start: 6.723, end: 10, lines: ['cccc cccc cccc cccc cccc cccc cccc cccc'] },
      ],
    ],
  ])('%s', (_name, segments, expected) => {
    expect(buildCues(segments, READABLE).map(({ start, end, lines }) => ({ start, end, lines }))).toEqual(expected);
  });

  it('times split cues by the words when the engine gave word timestamps', () => {
    const words = Array.from({ length: 24 }, (_, i) => ({ word: ` w${String(i).padStart(2, '0')}x`, start: i * 0.5, end: i * 0.5 + 0.4 }));
    const text = words.map((w) => w.word).join('');
    const cues = buildCues([seg(0, 12, text, { words })], READABLE);
    // 24 words of 4 characters: 8 per 42-character line, 2 lines per cue → 16 + 8 words
    expect(cues.map((c) => [c.start, c.end, c.lines.length])).toEqual([
      [0, 7.9, 2],
      [8, 11.9, 1],
    ]);
  });

  it('keeps one line per segment and the overlaps in the verbatim layout', () => {
    const long = 'word '.repeat(40).trim();
    expect(buildCues([seg(0, 9, long), seg(8, 10, 'next')], VERBATIM)).toEqual([
      { start: 0, end: 9, lines: [long], speaker: undefined },
      { start: 8, end: 10, lines: ['next'], speaker: undefined },
    ]);
  });

  it('times split cues by the transcript\'s words that spell the segment (OpenAI: top level, no punctuation)', () => {
    const text = `${'alpha '.repeat(7)}${'omega, '.repeat(7)}end.`;
    const tokens = text.trim().split(' ');
    const words = [{ word: 'earlier', start: 0, end: 1 }, ...tokens.map((t, i) => ({ word: ` ${t.replace(/[,.]/g, '')}`, start: 1 + i, end: 1.5 + i }))];
    const cues = buildCues([seg(1, 16, text)], { ...READABLE, maxLines: 1 }, words);
    expect(cues.map((c) => [c.start, c.end, c.lines[0]])).toEqual([
      [1, 7.5, 'alpha alpha alpha alpha alpha alpha alpha'],
      [8, 13.5, 'omega, omega, omega, omega, omega, omega,'],
      [14, 15.5, 'omega, end.'],
    ]);
    // words that do not spell the text: timed by characters instead
    expect(buildCues([seg(1, 16, text)], { ...READABLE, maxLines: 1 }, [{ word: 'other', start: 1, end: 2 }])[0].end).not.toBe(7.5);
  });

  it('names the speaker of the segment, or the one most of its words carry', () => {
    const cues = buildCues(
      [
        seg(0, 1, 'hi', { speaker: 'SPEAKER_01' }),
        seg(1, 2, 'yes no', {
          words: [
            { word: 'yes', start: 1, end: 1.5, speaker: 'SPEAKER_00' },
            { word: 'no', start: 1.5, end: 2, speaker: 'SPEAKER_00' },
          ],
        }),
      ],
      READABLE,
    );
    expect(cues.map((c) => c.speaker)).toEqual(['Speaker 2', 'Speaker 1']);
  });
});

const segments = [seg(0, 2.5, ' Hello there.'), seg(2.5, 65.25, ' General\tKenobi.')];

describe('documents', () => {
  it('SRT: numbered cues with comma milliseconds and a blank line between', () => {
    expect(toSrt(segments)).toBe('1\n00:00:00,000 --> 00:00:02,500\nHello there.\n\n2\n00:00:02,500 --> 00:01:05,250\nGeneral Kenobi.\n');
  });

  it('VTT: header, dot milliseconds, hours always in the readable layout and only past an hour in the verbatim one', () => {
    expect(toVtt(segments)).toBe('WEBVTT\n\n00:00:00.000 --> 00:00:02.500\nHello there.\n\n00:00:02.500 --> 00:01:05.250\nGeneral Kenobi.\n');
    expect(toVtt(segments, VERBATIM)).toBe('WEBVTT\n\n00:00.000 --> 00:02.500\nHello there.\n\n00:02.500 --> 01:05.250\nGeneral Kenobi.\n');
  });

  it('VTT and SRT: speaker turns as voice tags', () => {
    const diarized = [seg(0, 1, 'Hi.', { speaker: 'SPEAKER_00' }), seg(1, 2, 'Hello.', { speaker: 'SPEAKER_01' })];
    expect(toVtt(diarized)).toBe('WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n<v Speaker 1>Hi.\n\n00:00:01.000 --> 00:00:02.000\n<v Speaker 2>Hello.\n');
    expect(toSrt(diarized)).toContain('1\n00:00:00,000 --> 00:00:01,000\n<v Speaker 1>Hi.\n');
  });

  it('TSV: header, integer milliseconds, tabs in the text as spaces', () => {
    expect(toTsv(segments)).toBe('start\tend\ttext\n0\t2500\tHello there.\n2500\t65250\tGeneral Kenobi.\n');
  });

  it('text: one segment a line; the whole text when there are no segments; empty for nothing', () => {
    expect(toText(segments)).toBe('Hello there.\nGeneral Kenobi.\n');
    expect(toText([], ' just text ')).toBe('just text\n');
    expect(toText([])).toBe('');
  });

  it('empty transcripts give valid empty documents', () => {
    expect(toSrt([])).toBe('');
    expect(toVtt([])).toBe('WEBVTT\n\n');
    expect(toTsv([])).toBe('start\tend\ttext\n');
  });
});

describe('wordsBySegment', () => {
  it('places each word in the first segment holding its middle, and leaves out words outside every segment', () => {
    const w = (word: string, start: number, end: number) => ({ word, start, end });
    expect(wordsBySegment([seg(0, 2, 'a b'), seg(2, 4, 'c'), seg(3, 5, 'd')], [w('a', 0, 1), w('b', 1, 2), w('c', 2, 3.2), w('d', 3.5, 4.8), w('lost', 9, 10)])).toEqual([
      [w('a', 0, 1), w('b', 1, 2)],
      [w('c', 2, 3.2)],
      [w('d', 3.5, 4.8)],
    ]);
  });
});
