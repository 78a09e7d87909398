/** A UTF-16 surrogate without its pair (only a broken sender produces one). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` as PostgreSQL text and jsonb can hold it: U+0000 removed, unpaired surrogates as U+FFFD. */
function storable(text: string): string {
  return text.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * A copy of `value` whose every string and key PostgreSQL can store. API input carrying U+0000 or an
 * unpaired surrogate is refused by the platform's RejectNulPipe, but the social platform's webhook
 * payloads are not ours to refuse: they are stored without them.
 */
export function stripNul<T>(value: T): T {
  if (typeof value === 'string') return storable(value) as T;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => stripNul(v)) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [storable(k), stripNul(v)])) as T;
}

/** Whether a raw JSON body may hold what {@link stripNul} removes (JSON carries both only as \u escapes). */
export function mayNeedStripping(raw: Buffer): boolean {
  // Most bodies hold no escape at all: no copy of them as text then.
  if (raw.indexOf('\\u') === -1 && raw.indexOf('\\U') === -1) return false;
  return /\\u(0000|d[89a-f])/i.test(raw.toString('latin1'));
}
