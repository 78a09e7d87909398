import { LANGUAGE_NAMES, languageCodeOf, normaliseLanguage, WHISPER_LANGUAGES } from './languages';

describe('normaliseLanguage', () => {
  it.each([
    ['fr', 'fr'],
    ['EN', 'en'],
    [' de ', 'de'],
    ['en-US', 'en'],
    ['pt_BR', 'pt'],
    ['zh-Hant', 'zh'],
    ['haw', 'haw'],
    ['yue', 'yue'],
  ])('%j → %j', (input, expected) => {
    expect(normaliseLanguage(input)).toBe(expected);
  });

  it.each(['xx', 'english', 'e', 'fra', '', '-en', 'en us'])('refuses %j', (input) => {
    expect(normaliseLanguage(input)).toBeNull();
  });

  it('knows the 100 languages of Whisper', () => {
    expect(WHISPER_LANGUAGES.size).toBe(100);
  });
});

describe('languageCodeOf', () => {
  it.each([
    ['french', 'fr'],
    ['English', 'en'],
    ['haitian creole', 'ht'],
    ['cantonese', 'yue'],
    ['fr', 'fr'],
    ['pt-BR', 'pt'],
    ['iw', 'he'],
    ['klingon', null],
  ])('%j → %j', (reported, code) => expect(languageCodeOf(reported)).toBe(code));

  it('names every language Whisper knows', () => {
    expect(Object.keys(LANGUAGE_NAMES).sort()).toEqual([...WHISPER_LANGUAGES].sort());
  });
});
