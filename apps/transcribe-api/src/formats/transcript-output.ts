/**
 * The output formats of a transcript, chosen by `response_format` (OpenAI's name) or `output`
 * (whisper-asr-webservice's name): pure, no I/O.
 */
import type { TranscriptionResult, TranscriptionSegment, TranscriptionWord } from '../transcription/job-record';
import { READABLE, toSrt, toText, toTsv, toVtt, type SubtitleLayout } from './subtitles';

export const OUTPUT_FORMATS = ['json', 'verbose_json', 'text', 'srt', 'vtt', 'tsv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** What the parameter may say: the formats, plus whisper-asr-webservice's `txt` for `text`. */
export const OUTPUT_FORMAT_VALUES = [...OUTPUT_FORMATS, 'txt'] as const;

export function parseOutputFormat(value: string): OutputFormat | null {
  const v = value.trim().toLowerCase();
  if (v === 'txt') return 'text';
  return (OUTPUT_FORMATS as readonly string[]).includes(v) ? (v as OutputFormat) : null;
}

export type RenderedTranscript =
  | { kind: 'json'; body: object }
  | { kind: 'document'; body: string; contentType: string; extension: string };

/** A segment as the `json` format shows it: today's four fields, plus `speaker` when diarized. */
function plainSegment(s: TranscriptionSegment): Pick<TranscriptionSegment, 'id' | 'start' | 'end' | 'text' | 'speaker'> {
  return s.speaker ? { id: s.id, start: s.start, end: s.end, text: s.text, speaker: s.speaker } : { id: s.id, start: s.start, end: s.end, text: s.text };
}

/** The `json` shape (the default, unchanged): segments cut down to id, start, end, text (and speaker), no words. */
export function toJsonShape(result: TranscriptionResult): TranscriptionResult {
  const { words: _words, ...rest } = result;
  return { ...rest, segments: result.segments.map(plainSegment) };
}

/** `verbose_json`: everything the engine gave (segments with their probabilities, words with timings) and the task. */
export function toVerboseJson(result: TranscriptionResult): TranscriptionResult & { task: string; words: NonNullable<TranscriptionResult['words']> } {
  return { task: result.metadata.task, ...result, words: result.words ?? result.segments.flatMap((s) => s.words ?? []) };
}

/** The transcript's words (OpenAI gives them at the top level) placed in the first segment whose span holds their middle. */
export function wordsBySegment(segments: readonly TranscriptionSegment[], words: readonly TranscriptionWord[]): TranscriptionWord[][] {
  const out = segments.map((): TranscriptionWord[] => []);
  for (const w of words) {
    const middle = (w.start + w.end) / 2;
    const index = segments.findIndex((s) => middle >= s.start && middle <= s.end);
    if (index >= 0) out[index].push(w);
  }
  return out;
}

export const CONTENT_TYPES: Record<Exclude<OutputFormat, 'json' | 'verbose_json'>, string> = {
  text: 'text/plain; charset=utf-8',
  srt: 'application/x-subrip; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
  tsv: 'text/tab-separated-values; charset=utf-8',
};

export const EXTENSIONS: Record<OutputFormat, string> = { json: 'json', verbose_json: 'json', text: 'txt', srt: 'srt', vtt: 'vtt', tsv: 'tsv' };

/** Renders `result` in `format`; subtitles with `layout` (READABLE unless told). */
export function renderTranscript(result: TranscriptionResult, format: OutputFormat, layout: SubtitleLayout = READABLE): RenderedTranscript {
  switch (format) {
    case 'json':
      return { kind: 'json', body: toJsonShape(result) };
    case 'verbose_json':
      return { kind: 'json', body: toVerboseJson(result) };
    case 'text':
      return { kind: 'document', body: toText(result.segments, result.text), contentType: CONTENT_TYPES.text, extension: EXTENSIONS.text };
    case 'srt':
      return { kind: 'document', body: toSrt(result.segments, layout, result.words), contentType: CONTENT_TYPES.srt, extension: EXTENSIONS.srt };
    case 'vtt':
      return { kind: 'document', body: toVtt(result.segments, layout, result.words), contentType: CONTENT_TYPES.vtt, extension: EXTENSIONS.vtt };
    case 'tsv':
      return { kind: 'document', body: toTsv(result.segments), contentType: CONTENT_TYPES.tsv, extension: EXTENSIONS.tsv };
  }
}
