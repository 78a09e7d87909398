/** TypeORM answers `[rows, affectedCount]` for UPDATE/DELETE … RETURNING on PostgreSQL, plain rows otherwise. */
export function rowsOf<T>(raw: unknown): T[] {
  if (Array.isArray(raw) && raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number') return raw[0] as T[];
  return raw as T[];
}
