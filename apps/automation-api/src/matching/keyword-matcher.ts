/**
 * Keyword matching: pure functions, no I/O. Used by the preview now and by the engine (part 2)
 * when a comment, DM or story reply arrives.
 *
 * Normalisation: Unicode NFKC, lower case (locale independent), every character that is not a
 * letter or number (`\p{L}\p{N}`, plus combining marks `\p{M}` so that Devanagari or decomposed
 * accents stay inside their word) becomes a space, runs of spaces collapse. Word boundaries are
 * therefore Unicode-aware: "Привет!" contains the word "привет", "price" does not contain "pric".
 *
 * Modes:
 * - `word` (default): every word of the keyword appears, in order and adjacent, as whole words.
 * - `contains`: the keyword appears anywhere, also inside a word ("linkbio" contains "link").
 * - `exact`: the whole text equals the keyword (case, punctuation, emoji and spacing ignored).
 * - `any`: every text matches; `keywords` is ignored.
 * A keyword made only of symbols or emoji (for example "🔥") has no letters to normalise; it is
 * then compared as a case-insensitive substring of the raw text (mode `exact`: the whole trimmed text).
 *
 * `exclude_keywords` always match as whole words (or as substrings when they are only symbols):
 * when one appears, the rule does not trigger whatever its mode.
 *
 * Choosing among several matching rules: higher `priority` first; on equal priority the rule with
 * the more specific mode wins (`exact` > `word` > `contains` > `any`); then the older rule
 * (smaller `id`). The order is total, so the same input always picks the same rule.
 */

export const MATCH_MODES = ['word', 'contains', 'exact', 'any'] as const;
export type MatchMode = (typeof MATCH_MODES)[number];

export interface MatchRule {
  id: number;
  keywords: readonly string[];
  match_mode: MatchMode;
  exclude_keywords?: readonly string[];
  priority?: number;
}

export interface MatchResult<R extends MatchRule> {
  rule: R;
  /** The keyword that matched (null for mode `any`). */
  keyword: string | null;
}

const NON_WORD = /[^\p{L}\p{N}\p{M}]+/gu;

/** NFKC, lower case, non-letters/numbers to single spaces, trimmed. */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(NON_WORD, ' ').trim();
}

function rawLower(text: string): string {
  return text.normalize('NFKC').toLowerCase().trim();
}

/** True when `keyword` matches `text` under `mode`. */
export function keywordMatches(text: string, keyword: string, mode: MatchMode): boolean {
  if (mode === 'any') return true;
  const kw = normalizeText(keyword);
  if (kw === '') {
    const symbol = rawLower(keyword);
    if (symbol === '') return false;
    return mode === 'exact' ? rawLower(text) === symbol : rawLower(text).includes(symbol);
  }
  const normalized = normalizeText(text);
  switch (mode) {
    case 'exact':
      return normalized === kw;
    case 'contains':
      return normalized.includes(kw) || normalized.replace(/ /g, '').includes(kw.replace(/ /g, ''));
    case 'word':
      return ` ${normalized} `.includes(` ${kw} `);
  }
}

/** The first keyword of `keywords` that matches, or undefined. */
export function firstMatchingKeyword(text: string, keywords: readonly string[], mode: MatchMode): string | undefined {
  return keywords.find((k) => keywordMatches(text, k, mode));
}

/** True when one of the exclude keywords appears (as a whole word) in the text. */
export function isExcluded(text: string, excludeKeywords: readonly string[] | undefined): boolean {
  return (excludeKeywords ?? []).some((k) => keywordMatches(text, k, 'word'));
}

/** Whether one rule triggers on the text; null when it does not. */
export function matchRule<R extends MatchRule>(text: string, rule: R): MatchResult<R> | null {
  if (isExcluded(text, rule.exclude_keywords)) return null;
  if (rule.match_mode === 'any') return { rule, keyword: null };
  const keyword = firstMatchingKeyword(text, rule.keywords, rule.match_mode);
  return keyword === undefined ? null : { rule, keyword };
}

const SPECIFICITY: Record<MatchMode, number> = { exact: 3, word: 2, contains: 1, any: 0 };

/** Sort comparator implementing the documented tie-break: priority, specificity, then id. */
export function compareRules(a: MatchRule, b: MatchRule): number {
  return (
    (b.priority ?? 0) - (a.priority ?? 0) ||
    SPECIFICITY[b.match_mode] - SPECIFICITY[a.match_mode] ||
    a.id - b.id
  );
}

/** Every rule that triggers, best first. */
export function matchAll<R extends MatchRule>(text: string, rules: readonly R[]): MatchResult<R>[] {
  return [...rules]
    .sort(compareRules)
    .map((rule) => matchRule(text, rule))
    .filter((m): m is MatchResult<R> => m !== null);
}

/** The single rule that reacts to the text, or null. */
export function selectRule<R extends MatchRule>(text: string, rules: readonly R[]): MatchResult<R> | null {
  return matchAll(text, rules)[0] ?? null;
}

/**
 * Keywords two rules share, compared after normalisation; a rule in mode `any` overlaps with every
 * keyword of the other one (returned as `*` when the other one is `any` too).
 */
export function overlappingKeywords(a: MatchRule, b: MatchRule): string[] {
  if (a.match_mode === 'any' && b.match_mode === 'any') return ['*'];
  if (a.match_mode === 'any') return [...b.keywords];
  if (b.match_mode === 'any') return [...a.keywords];
  const other = new Set(b.keywords.map((k) => normalizeText(k) || rawLower(k)));
  return a.keywords.filter((k) => other.has(normalizeText(k) || rawLower(k)));
}
