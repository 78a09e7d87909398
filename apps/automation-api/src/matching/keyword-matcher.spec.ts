import {
  compareRules,
  isExcluded,
  keywordMatches,
  matchAll,
  normalizeText,
  overlappingKeywords,
  selectRule,
  type MatchRule,
} from './keyword-matcher';

describe('normalizeText', () => {
  it('lower-cases, strips punctuation and emoji, collapses spaces', () => {
    expect(normalizeText('  LINK!!!  please 🔥🔥 ')).toBe('link please');
  });
  it('applies NFKC (full-width letters become ASCII)', () => {
    expect(normalizeText('ＬＩＮＫ')).toBe('link');
  });
  it('keeps non-Latin letters and numbers', () => {
    expect(normalizeText('Привет, МИР 2024!')).toBe('привет мир 2024');
    expect(normalizeText('Größe')).toBe('größe');
  });
});

describe('keywordMatches', () => {
  const cases: Array<[string, string, 'word' | 'contains' | 'exact' | 'any', boolean]> = [
    ['Send me the LINK please', 'link', 'word', true],
    ['link!', 'Link', 'word', true],
    ['linkedin profile', 'link', 'word', false],
    ['#link', 'link', 'word', true],
    ['I want the guide now', 'the guide', 'word', true],
    ['I want the  guide now', 'the guide', 'word', true],
    ['theguide', 'the guide', 'word', false],
    ['хочу ГАЙД пожалуйста', 'гайд', 'word', true],
    ['гайды', 'гайд', 'word', false],
    ['Größe bitte', 'größe', 'word', true],
    ['café', 'cafe', 'word', false],
    ['本当にリンク', 'リンク', 'contains', true],
    ['linkedin profile', 'link', 'contains', true],
    ['li nk', 'link', 'contains', true],
    ['please', 'link', 'contains', false],
    ['LINK', 'link', 'exact', true],
    [' Link! 🙏', 'link', 'exact', true],
    ['link please', 'link', 'exact', false],
    ['anything at all', 'ignored', 'any', true],
    ['', 'x', 'any', true],
    ['love it 🔥', '🔥', 'word', true],
    ['love it', '🔥', 'word', false],
    ['🔥', '🔥', 'exact', true],
    ['🔥 yes', '🔥', 'exact', false],
    ['text', '   ', 'contains', false],
  ];
  it.each(cases)('%j vs %j (%s) → %s', (text, keyword, mode, expected) => {
    expect(keywordMatches(text, keyword, mode)).toBe(expected);
  });
});

describe('isExcluded', () => {
  it('matches whole words only', () => {
    expect(isExcluded('no spam please', ['spam'])).toBe(true);
    expect(isExcluded('spammy', ['spam'])).toBe(false);
    expect(isExcluded('anything', [])).toBe(false);
    expect(isExcluded('anything', undefined)).toBe(false);
  });
});

describe('rule selection', () => {
  const rule = (over: Partial<MatchRule> & { id: number }): MatchRule => ({
    keywords: [],
    match_mode: 'word',
    exclude_keywords: [],
    priority: 0,
    ...over,
  });

  it('returns null when no rule matches', () => {
    expect(selectRule('hello', [rule({ id: 1, keywords: ['link'] })])).toBeNull();
  });

  it('reports the keyword that matched', () => {
    const r = rule({ id: 1, keywords: ['guide', 'link'] });
    expect(selectRule('the LINK', [r])).toEqual({ rule: r, keyword: 'link' });
  });

  it('exclude keywords veto the rule, also in mode any', () => {
    const r = rule({ id: 1, match_mode: 'any', exclude_keywords: ['stop'] });
    expect(selectRule('please STOP', [r])).toBeNull();
    expect(selectRule('please go', [r])).toEqual({ rule: r, keyword: null });
  });

  it('rules without keywords never match unless mode any', () => {
    expect(selectRule('link', [rule({ id: 1, keywords: [] })])).toBeNull();
  });

  it('higher priority wins', () => {
    const low = rule({ id: 1, keywords: ['link'], priority: 0 });
    const high = rule({ id: 2, keywords: ['link'], priority: 5 });
    expect(selectRule('link', [low, high])?.rule.id).toBe(2);
  });

  it('on equal priority the more specific mode wins, then the smaller id', () => {
    const any = rule({ id: 1, match_mode: 'any' });
    const contains = rule({ id: 2, match_mode: 'contains', keywords: ['link'] });
    const word = rule({ id: 3, match_mode: 'word', keywords: ['link'] });
    const exact = rule({ id: 4, match_mode: 'exact', keywords: ['link'] });
    const word2 = rule({ id: 0, match_mode: 'word', keywords: ['link'] });
    expect(matchAll('link', [any, contains, word, exact, word2]).map((m) => m.rule.id)).toEqual([4, 0, 3, 2, 1]);
    expect(selectRule('my link', [any, contains, word, exact])?.rule.id).toBe(3);
  });

  it('the order does not depend on the input order', () => {
    const rules = [rule({ id: 3, priority: 1 }), rule({ id: 1, priority: 1 }), rule({ id: 2, priority: 2 })];
    expect([...rules].sort(compareRules).map((r) => r.id)).toEqual([2, 1, 3]);
    expect([...rules].reverse().sort(compareRules).map((r) => r.id)).toEqual([2, 1, 3]);
  });
});

describe('overlappingKeywords', () => {
  it('compares normalised keywords', () => {
    expect(
      overlappingKeywords(
        { id: 1, keywords: ['Link!', 'guide'], match_mode: 'word' },
        { id: 2, keywords: ['link', 'other'], match_mode: 'contains' },
      ),
    ).toEqual(['Link!']);
  });
  it('mode any overlaps with everything', () => {
    expect(overlappingKeywords({ id: 1, keywords: [], match_mode: 'any' }, { id: 2, keywords: ['a'], match_mode: 'word' })).toEqual(['a']);
    expect(overlappingKeywords({ id: 1, keywords: [], match_mode: 'any' }, { id: 2, keywords: [], match_mode: 'any' })).toEqual(['*']);
  });
});
