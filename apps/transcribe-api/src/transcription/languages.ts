/**
 * The language codes Whisper models know (ISO 639-1, plus `haw` and `yue`, which have none): the
 * values engines accept in `language`. Anything else would fail at the engine after the upload,
 * so the API refuses it up front with 422.
 */
export const WHISPER_LANGUAGES: ReadonlySet<string> = new Set(
  (
    'en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la mi ml cy sk ' +
    'te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am yi lo uz fo ' +
    'ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su yue'
  ).split(' '),
);

/**
 * The code to send for what a client wrote: case and surrounding spaces do not matter, and a region
 * or script subtag is dropped (`en-US` → `en`, `zh_Hant` → `zh`). Returns null when Whisper does
 * not know the language.
 */
export function normaliseLanguage(value: string): string | null {
  const primary = value.trim().toLowerCase().split(/[-_]/)[0];
  return WHISPER_LANGUAGES.has(primary) ? primary : null;
}

/** Whisper's names of its languages (its tokenizer's `LANGUAGES`), as `/detect-language` answers them. */
export const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  en: 'english', zh: 'chinese', de: 'german', es: 'spanish', ru: 'russian', ko: 'korean', fr: 'french', ja: 'japanese',
  pt: 'portuguese', tr: 'turkish', pl: 'polish', ca: 'catalan', nl: 'dutch', ar: 'arabic', sv: 'swedish', it: 'italian',
  id: 'indonesian', hi: 'hindi', fi: 'finnish', vi: 'vietnamese', he: 'hebrew', uk: 'ukrainian', el: 'greek', ms: 'malay',
  cs: 'czech', ro: 'romanian', da: 'danish', hu: 'hungarian', ta: 'tamil', no: 'norwegian', th: 'thai', ur: 'urdu',
  hr: 'croatian', bg: 'bulgarian', lt: 'lithuanian', la: 'latin', mi: 'maori', ml: 'malayalam', cy: 'welsh', sk: 'slovak',
  te: 'telugu', fa: 'persian', lv: 'latvian', bn: 'bengali', sr: 'serbian', az: 'azerbaijani', sl: 'slovenian', kn: 'kannada',
  et: 'estonian', mk: 'macedonian', br: 'breton', eu: 'basque', is: 'icelandic', hy: 'armenian', ne: 'nepali', mn: 'mongolian',
  bs: 'bosnian', kk: 'kazakh', sq: 'albanian', sw: 'swahili', gl: 'galician', mr: 'marathi', pa: 'punjabi', si: 'sinhala',
  km: 'khmer', sn: 'shona', yo: 'yoruba', so: 'somali', af: 'afrikaans', oc: 'occitan', ka: 'georgian', be: 'belarusian',
  tg: 'tajik', sd: 'sindhi', gu: 'gujarati', am: 'amharic', yi: 'yiddish', lo: 'lao', uz: 'uzbek', fo: 'faroese',
  ht: 'haitian creole', ps: 'pashto', tk: 'turkmen', nn: 'nynorsk', mt: 'maltese', sa: 'sanskrit', lb: 'luxembourgish',
  my: 'myanmar', bo: 'tibetan', tl: 'tagalog', mg: 'malagasy', as: 'assamese', tt: 'tatar', haw: 'hawaiian', ln: 'lingala',
  ha: 'hausa', ba: 'bashkir', jw: 'javanese', su: 'sundanese', yue: 'cantonese',
};

const CODES_BY_NAME = new Map(Object.entries(LANGUAGE_NAMES).map(([code, name]) => [name, code]));

/**
 * The code of what an engine reported: a code (`fr`, faster-whisper servers) or Whisper's name
 * (`french`, the hosted OpenAI API; `iw` is Whisper's old code for Hebrew). Null when unknown.
 */
export function languageCodeOf(reported: string): string | null {
  const v = reported.trim().toLowerCase();
  if (v === 'iw') return 'he';
  return CODES_BY_NAME.get(v) ?? normaliseLanguage(v);
}
