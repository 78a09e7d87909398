import { ApiError } from '@platform/errors';

/** The spec's cursor page: `total` only on the first page (no cursor given), 0 on later pages. */
export interface CursorPage<T> {
  data: T[];
  cursor: string | null;
  hasMore: boolean;
  total: number;
}

/** Position of the last row of a page: keyset on (created_at, id), newest first. */
export interface Keyset {
  createdAt: Date;
  id: string;
}

export function encodeCursor(k: Keyset): string {
  return Buffer.from(JSON.stringify([k.createdAt.toISOString(), k.id])).toString('base64url');
}

/** Ids of paged rows: `cnt_…`, `evt_…`, `eml_…` (see common/ids.ts). */
const ROW_ID = /^[a-z]{3}_[0-9a-z]{1,64}$/;

/** `idPattern`: what the keyset's second part looks like (row ids by default; another list's key, e.g. an email). */
export function decodeCursor(cursor: string | undefined, idPattern: RegExp = ROW_ID): Keyset | null {
  if (cursor === undefined || cursor === '') return null;
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    const createdAt = new Date(String(at));
    if (typeof at !== 'string' || typeof id !== 'string' || !idPattern.test(id) || Number.isNaN(createdAt.getTime())) throw new Error('bad cursor');
    return { createdAt, id };
  } catch {
    throw new ApiError(400, 'INVALID_CURSOR', 'The cursor is not valid', {
      suggestion: 'Pass the `cursor` value of the previous page unchanged, or omit it to start from the first page.',
    });
  }
}

/** Builds the page from `limit + 1` fetched rows. */
export function toPage<T extends { id: string; createdAt: Date }>(rows: T[], limit: number, total: number | null): CursorPage<T> {
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  const last = data[data.length - 1];
  return { data, cursor: hasMore && last ? encodeCursor(last) : null, hasMore, total: total ?? 0 };
}
