/**
 * Double opt-in state: `pending` (asked to confirm, not subscribed until the link is confirmed),
 * `confirmed` (subscribed through a confirmed link, or attested with `confirmed: true`), null (never
 * asked, or unsubscribed since: a new signup asks again).
 */
export type OptInState = 'pending' | 'confirmed';

/** A contact as the API returns it. */
export interface Contact {
  id: string;
  email: string;
  subscribed: boolean;
  optIn: OptInState | null;
  /** The last confirmation (kept after an unsubscribe as the record of the consent given then). */
  confirmedAt: Date | null;
  data: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface ContactRow {
  id: string;
  project_id: string;
  email: string;
  subscribed: boolean;
  opt_in: OptInState | null;
  confirmed_at: Date | null;
  confirmation_sent_at: Date | null;
  data: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

/** `optIn` as it holds now: a pending contact that got subscribed otherwise, or a confirmed one that unsubscribed, shows null. */
export function optInOf(r: Pick<ContactRow, 'opt_in' | 'subscribed'>): OptInState | null {
  if (r.opt_in === 'pending') return r.subscribed ? null : 'pending';
  if (r.opt_in === 'confirmed') return r.subscribed ? 'confirmed' : null;
  return null;
}

export function toContact(r: ContactRow): Contact {
  return {
    id: r.id,
    email: r.email,
    subscribed: r.subscribed,
    optIn: optInOf(r),
    confirmedAt: r.confirmed_at ?? null,
    data: r.data ?? {},
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
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
