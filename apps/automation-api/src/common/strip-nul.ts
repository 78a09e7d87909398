/**
 * A copy of `value` with U+0000 removed from every string and key. PostgreSQL text and jsonb cannot
 * hold the character; API input carrying it is refused by the platform's RejectNulPipe, but the
 * social platform's webhook payloads are not ours to refuse: they are stored without it.
 */
export function stripNul<T>(value: T): T {
  if (typeof value === 'string') return value.replaceAll('\u0000', '') as T;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => stripNul(v)) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replaceAll('\u0000', ''), stripNul(v)])) as T;
}
