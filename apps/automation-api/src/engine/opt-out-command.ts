import { normalizeText } from '../matching/keyword-matcher';

/**
 * Whether a direct message is an opt-out or opt-in command: the whole message (after the matcher's
 * normalisation: NFKC, lower case, punctuation and emoji dropped) is one of the words. "STOP!" and
 * "  Unsubscribe. " are commands; "stop sending me the link, I have it" is not (it is an ordinary message).
 */
export type OptCommand = 'stop' | 'start';

export function parseKeywordList(raw: string): string[] {
  return raw
    .split(',')
    .map((w) => normalizeText(w))
    .filter((w) => w.length > 0);
}

export function optCommand(text: string | null | undefined, stopWords: readonly string[], startWords: readonly string[]): OptCommand | null {
  if (!text) return null;
  const t = normalizeText(text);
  if (!t) return null;
  if (stopWords.includes(t)) return 'stop';
  if (startWords.includes(t)) return 'start';
  return null;
}
