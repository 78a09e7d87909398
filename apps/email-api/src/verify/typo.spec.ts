import { editDistance, suggestDomain } from './typo';

describe('typo suggestions', () => {
  it.each([
    ['gmial.com', 'gmail.com'],
    ['gmai.com', 'gmail.com'],
    ['gnail.com', 'gmail.com'],
    ['hotmial.com', 'hotmail.com'],
    ['yahooo.com', 'yahoo.com'],
    ['outlok.com', 'outlook.com'],
    ['icloud.co', 'icloud.com'],
    ['example.cmo', 'example.com'],
    ['example.ent', 'example.net'],
  ])('%s → %s', (typo, fixed) => {
    expect(suggestDomain(typo)).toBe(fixed);
  });

  it.each(['gmail.com', 'example.com', 'mycompany.io', 'acme.org', 'me.com', 'mail.ru'])('leaves %s alone', (domain) => {
    expect(suggestDomain(domain)).toBeNull();
  });

  it('counts adjacent transpositions as one edit', () => {
    expect(editDistance('gmial', 'gmail')).toBe(1);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
  });
});
