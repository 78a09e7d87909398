export interface TrackedEvent {
  id: string;
  name: string;
  contactId: string | null;
  data: Record<string, unknown> | null;
  createdAt: Date;
}

export interface EventRow {
  id: string;
  project_id: string;
  contact_id: string | null;
  name: string;
  data: Record<string, unknown> | null;
  created_at: Date;
  email?: string | null;
}

export function toEvent(r: EventRow): TrackedEvent & { email?: string | null } {
  return { id: r.id, name: r.name, contactId: r.contact_id, data: r.data, createdAt: r.created_at, ...(r.email !== undefined ? { email: r.email } : {}) };
}

/** Names the platform records itself; POST /v1/track refuses them (422). */
export function isReservedEventName(name: string): boolean {
  return (
    name.startsWith('email.') ||
    name === 'contact.subscribed' ||
    name === 'contact.unsubscribed' ||
    /^segment\.[^.]+\.(entry|exit)$/.test(name)
  );
}

/**
 * Splits track `data`: plain values are stored on the contact and the event; `{value, persistent:
 * false}` reaches only the event (and the workflow context), never the contact.
 */
export function splitTrackData(data: Record<string, unknown> | undefined): { contact: Record<string, unknown>; event: Record<string, unknown> } {
  const contact: Record<string, unknown> = {};
  const event: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(data ?? {})) {
    if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && 'value' in raw && (raw as { persistent?: unknown }).persistent === false) {
      event[key] = (raw as { value: unknown }).value;
      continue;
    }
    contact[key] = raw;
    if (raw !== null && raw !== '') event[key] = raw;
  }
  return { contact, event };
}
