import { normaliseLanguage, WHISPER_LANGUAGES } from './languages';

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
