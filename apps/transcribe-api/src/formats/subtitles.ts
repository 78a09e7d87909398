/**
 * Subtitle and text writers: plain functions from segments to documents (no I/O), tested by tables.
 *
 * Two layouts:
 * - `READABLE` (the `/transcribe` routes): lines of at most 42 characters, at most 2 lines per cue
 *   (the usual broadcast rules); a longer segment is split into several cues, timed by its words
 *   when the engine gave word timestamps, else in proportion to the characters.
 * - `VERBATIM` (the whisper-asr-webservice `/asr` route): one cue per segment on one line, exactly as
 *   that service's writers print them (VTT times without hours under an hour).
 *
 * Rules shared by both: text is trimmed, inner whitespace collapsed and, in cues, `-->` written `->`
 * (it would end a cue's timing line); segments with no text are left out; negative times count as 0
 * and an end before its start as the start; cues are ordered by start. In the readable layout a cue
 * overlapping the next one ends where the next begins (players show one cue at a time per track).
 * A diarized segment's cue starts with a WebVTT voice tag, `<v Speaker 1>` (engine label
 * `SPEAKER_00` → `Speaker 1`). Word timings are the segment's own, or the transcript's words whose
 * middle falls in the segment and that spell its text (punctuation and case aside: OpenAI's words
 * come without punctuation).
 */
import type { TranscriptionSegment, TranscriptionWord } from '../transcription/job-record';

export interface SubtitleLayout {
  /** longest line in characters (a longer word stays whole on its own line); 0: no wrapping */
  maxLineLength: number;
  /** lines per cue; a longer text becomes several cues; 0: no limit */
  maxLines: number;
  /** VTT timestamps with hours even under an hour (`00:01:02.000`) rather than `01:02.000` */
  vttAlwaysHours: boolean;
  /** a cue overlapping the next one ends where the next begins */
  clampOverlaps: boolean;
}

export const READABLE: SubtitleLayout = { maxLineLength: 42, maxLines: 2, vttAlwaysHours: true, clampOverlaps: true };
export const VERBATIM: SubtitleLayout = { maxLineLength: 0, maxLines: 0, vttAlwaysHours: false, clampOverlaps: false };

export interface Cue {
  start: number;
  end: number;
  lines: string[];
  /** display name (`Speaker 1`) */
  speaker?: string;
}

/** `HH:MM:SS,mmm` (SRT: `marker` `,`) or `HH:MM:SS.mmm`; hours left out under an hour unless `alwaysHours`. */
export function formatTimestamp(seconds: number, opts: { alwaysHours: boolean; marker: ',' | '.' }): string {
  return stampOf(seconds, opts.alwaysHours, opts.marker);
}

const two = (n: number): string => (n < 10 ? `0${n}` : String(n));
const three = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n));

/** formatTimestamp without the options object (called twice per cue). */
function stampOf(seconds: number, alwaysHours: boolean, marker: string): string {
  const total = Math.round(Math.max(0, Number.isFinite(seconds) ? seconds : 0) * 1000);
  const h = Math.floor(total / 3_600_000);
  const m = Math.floor((total % 3_600_000) / 60_000);
  const s = Math.floor((total % 60_000) / 1000);
  const hours = alwaysHours || h > 0 ? `${two(h)}:` : '';
  return `${hours}${two(m)}:${two(s)}${marker}${three(total % 1000)}`;
}

/** `SPEAKER_00` → `Speaker 1`; any other label is shown as the engine wrote it. */
export function speakerName(label: string): string {
  const match = /^SPEAKER_(\d+)$/i.exec(label.trim());
  return match ? `Speaker ${Number(match[1]) + 1}` : label.trim();
}

const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();
const clean = (text: string): string => squash(text).replace(/-->/g, '->');

const time = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

/** The segment's speaker, or the one most of its words carry. */
function speakerOf(segment: TranscriptionSegment): string | undefined {
  if (segment.speaker) return segment.speaker;
  const counts = new Map<string, number>();
  for (const w of segment.words ?? []) if (w.speaker) counts.set(w.speaker, (counts.get(w.speaker) ?? 0) + 1);
  let best: string | undefined;
  for (const [label, n] of counts) if (!best || n > counts.get(best)!) best = label;
  return best;
}

/** Greedy word wrap; a word longer than the limit gets a line of its own. Returns the token index each line starts at. */
export function wrapWords(tokens: string[], maxLineLength: number): string[][] {
  const lines: string[][] = [];
  let line: string[] = [];
  let length = 0;
  for (const token of tokens) {
    const added = line.length ? length + 1 + token.length : token.length;
    if (maxLineLength > 0 && line.length && added > maxLineLength) {
      lines.push(line);
      line = [token];
      length = token.length;
    } else {
      line.push(token);
      length = added;
    }
  }
  if (line.length) lines.push(line);
  return lines;
}

interface Token {
  text: string;
  start?: number;
  end?: number;
}

const NOT_LETTERS = /[^\p{L}\p{N}]+/gu;
const spelling = (s: string): string => s.toLowerCase().replace(NOT_LETTERS, '');

/** The transcript's words ordered by their middle, to find a segment's words by binary search. */
interface WordIndex {
  words: readonly TranscriptionWord[];
  middles: Float64Array;
}

function indexWords(words: readonly TranscriptionWord[]): WordIndex {
  const middles = new Float64Array(words.length);
  let ordered = true;
  for (let i = 0; i < words.length; i++) {
    middles[i] = (time(words[i].start) + time(words[i].end)) / 2;
    if (i && middles[i] < middles[i - 1]) ordered = false;
  }
  if (ordered) return { words, middles }; // engines give words in time order: nothing to sort
  const order = Array.from(middles.keys()).sort((a, b) => middles[a] - middles[b]);
  return { words: order.map((i) => words[i]), middles: Float64Array.from(order.map((i) => middles[i])) };
}

/** Words whose middle lies in [from, to], in order. */
function wordsBetween(index: WordIndex, from: number, to: number): TranscriptionWord[] {
  let lo = 0;
  let hi = index.middles.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (index.middles[mid] < from) lo = mid + 1;
    else hi = mid;
  }
  const out: TranscriptionWord[] = [];
  for (let i = lo; i < index.middles.length && index.middles[i] <= to; i++) out.push(index.words[i]);
  return out;
}

/** `token === word.trim()` for ASCII blanks around `word`, without allocating the trimmed copy. */
function asWritten(token: string, word: string): boolean {
  let from = 0;
  let to = word.length;
  while (from < to && word.charCodeAt(from) <= 32) from++;
  while (to > from && word.charCodeAt(to - 1) <= 32) to--;
  return to - from === token.length && word.startsWith(token, from);
}

/** The text's words, timed by the engine's words when a run of them spells the text, else untimed. */
function tokensOf(segment: TranscriptionSegment, text: string, words: WordIndex): Token[] {
  const tokens = text.split(' ');
  const candidates = segment.words?.length
    ? segment.words
    : wordsBetween(words, time(segment.start) - 0.01, Math.max(time(segment.start), time(segment.end)) + 0.01);
  // The same word as written, or spelt alike (the regular expression only when the plain comparison fails).
  const same = (token: string, word: string): boolean => asWritten(token, word) || spelling(token) === spelling(word);
  for (let offset = 0; offset + tokens.length <= candidates.length; offset++) {
    let all = true;
    for (let i = 0; i < tokens.length && all; i++) all = same(tokens[i], candidates[offset + i].word);
    if (all) {
      return tokens.map((t, i) => ({ text: t, start: time(candidates[offset + i].start), end: time(candidates[offset + i].end) }));
    }
  }
  return tokens.map((t) => ({ text: t }));
}

/** Cues of one segment: its text wrapped, then cut every `maxLines` lines, each part timed. */
function cuesOfSegment(segment: TranscriptionSegment, layout: SubtitleLayout, words: WordIndex): Cue[] {
  const text = clean(segment.text ?? '');
  if (!text) return [];
  const start = time(segment.start);
  const end = Math.max(start, time(segment.end));
  const label = speakerOf(segment);
  const speaker = label ? speakerName(label) : undefined;
  if (layout.maxLineLength <= 0 && layout.maxLines <= 0) return [{ start, end, lines: [text], speaker }];

  const tokens = tokensOf(segment, text, words);
  const lines = wrapWords(
    tokens.map((t) => t.text),
    layout.maxLineLength,
  );
  const perCue = layout.maxLines > 0 ? layout.maxLines : lines.length;
  if (lines.length <= perCue) return [{ start, end, lines: lines.map((l) => l.join(' ')), speaker }];

  const cues: Cue[] = [];
  const totalChars = text.length;
  let tokenIndex = 0;
  let charsBefore = 0;
  for (let i = 0; i < lines.length; i += perCue) {
    const group = lines.slice(i, i + perCue);
    const texts = group.map((l) => l.join(' '));
    let count = 0;
    let chars = texts.length - 1; // the spaces between the lines
    for (let j = 0; j < group.length; j++) {
      count += group[j].length;
      chars += texts[j].length;
    }
    let timed = true;
    for (let j = tokenIndex; j < tokenIndex + count && timed; j++) timed = tokens[j].start !== undefined && tokens[j].end !== undefined;
    let cueStart: number;
    let cueEnd: number;
    if (timed) {
      cueStart = Math.max(start, tokens[tokenIndex].start!);
      cueEnd = Math.max(cueStart, Math.min(end, tokens[tokenIndex + count - 1].end!));
    } else {
      cueStart = start + ((end - start) * charsBefore) / totalChars;
      // contiguous: this part ends where the next one starts (after the space between them)
      cueEnd = i + perCue >= lines.length ? end : start + ((end - start) * (charsBefore + chars + 1)) / totalChars;
    }
    cues.push({ start: round3(cueStart), end: round3(cueEnd), lines: texts, speaker });
    tokenIndex += count;
    charsBefore += chars + 1;
  }
  return cues;
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/** Every segment's cues in start order (readable: an overlapping cue ending where the next one begins). `words`: the transcript's word timings. */
export function buildCues(segments: readonly TranscriptionSegment[], layout: SubtitleLayout, words: readonly TranscriptionWord[] = []): Cue[] {
  const index = indexWords(layout.maxLineLength > 0 || layout.maxLines > 0 ? words : []);
  let cues: Cue[] = [];
  const segmentOf: number[] = [];
  let ordered = true;
  for (let i = 0; i < segments.length; i++) {
    for (const cue of cuesOfSegment(segments[i], layout, index)) {
      if (cues.length && cue.start < cues[cues.length - 1].start) ordered = false;
      cues.push(cue);
      segmentOf.push(i);
    }
  }
  if (!ordered) {
    // by start, then in segment order (a stable sort keeps each segment's cues in order)
    cues = cues
      .map((cue, i) => ({ cue, segment: segmentOf[i] }))
      .sort((a, b) => a.cue.start - b.cue.start || a.segment - b.segment)
      .map((c) => c.cue);
  }
  for (let i = 0; layout.clampOverlaps && i + 1 < cues.length; i++) {
    if (cues[i].end > cues[i + 1].start) cues[i].end = cues[i + 1].start;
  }
  return cues;
}

const voiced = (cue: Cue): string[] => (cue.speaker ? [`<v ${cue.speaker}>${cue.lines[0]}`, ...cue.lines.slice(1)] : cue.lines);

/** SubRip: numbered cues, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, the text, a blank line. */
export function toSrt(segments: readonly TranscriptionSegment[], layout: SubtitleLayout = READABLE, words: readonly TranscriptionWord[] = []): string {
  const cues = buildCues(segments, layout, words);
  let out = '';
  for (let i = 0; i < cues.length; i++) {
    const cue = cues[i];
    out += `${i ? '\n' : ''}${i + 1}\n${stampOf(cue.start, true, ',')} --> ${stampOf(cue.end, true, ',')}\n${voiced(cue).join('\n')}\n`;
  }
  return out;
}

/** WebVTT: the `WEBVTT` header, a blank line, then cues with `HH:MM:SS.mmm` times. */
export function toVtt(segments: readonly TranscriptionSegment[], layout: SubtitleLayout = READABLE, words: readonly TranscriptionWord[] = []): string {
  const cues = buildCues(segments, layout, words);
  let out = 'WEBVTT\n\n';
  for (let i = 0; i < cues.length; i++) {
    const cue = cues[i];
    out += `${i ? '\n' : ''}${stampOf(cue.start, layout.vttAlwaysHours, '.')} --> ${stampOf(cue.end, layout.vttAlwaysHours, '.')}\n${voiced(cue).join('\n')}\n`;
  }
  return out;
}

/** Whisper's TSV: a `start end text` header, then integer milliseconds and the text (tabs as spaces), one segment a line. */
export function toTsv(segments: readonly TranscriptionSegment[]): string {
  const rows = segments
    .map((s) => ({ start: time(s.start), end: Math.max(time(s.start), time(s.end)), text: squash((s.text ?? '').replace(/\t/g, ' ')) }))
    .filter((s) => s.text)
    .map((s) => `${Math.round(s.start * 1000)}\t${Math.round(s.end * 1000)}\t${s.text}\n`);
  return `start\tend\ttext\n${rows.join('')}`;
}

/** Plain text as Whisper's `txt` writer: each segment's text on its own line. */
export function toText(segments: readonly TranscriptionSegment[], fallback = ''): string {
  const lines = segments.map((s) => squash(s.text ?? '')).filter(Boolean);
  if (!lines.length) return fallback.trim() ? `${fallback.trim()}\n` : '';
  return `${lines.join('\n')}\n`;
}
