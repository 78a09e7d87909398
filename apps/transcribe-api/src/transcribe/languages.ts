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
