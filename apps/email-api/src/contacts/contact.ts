/** A contact as the API returns it. */
export interface Contact {
  id: string;
  email: string;
  subscribed: boolean;
  data: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface ContactRow {
  id: string;
  project_id: string;
  email: string;
  subscribed: boolean;
  data: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export function toContact(r: ContactRow): Contact {
  return { id: r.id, email: r.email, subscribed: r.subscribed, data: r.data ?? {}, createdAt: r.created_at, updatedAt: r.updated_at };
}

/** Standard fields of every contact (they cannot be used as custom `data` keys or deleted). */
export const STANDARD_FIELDS = [
  { field: 'email', type: 'string' },
  { field: 'subscribed', type: 'boolean' },
  { field: 'createdAt', type: 'date' },
  { field: 'updatedAt', type: 'date' },
] as const;

export const RESERVED_DATA_KEYS = new Set(['id', 'email', 'subscribed', 'createdAt', 'updatedAt', 'data']);

/**
 * How a `data` body changes the stored fields: `null` removes a key, `""` is ignored (so that empty
 * form fields never wipe a value), anything else is set (objects replace, they are not deep-merged).
 */
export interface DataPatch {
  set: Record<string, unknown>;
  unset: string[];
}

export function dataPatch(data: Record<string, unknown> | undefined): DataPatch {
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  for (const [key, value] of Object.entries(data ?? {})) {
    if (value === null) unset.push(key);
    else if (value === '' || value === undefined) continue;
    else set[key] = value;
  }
  return { set, unset };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
