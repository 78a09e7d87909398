import { Inject, Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError, type FieldError } from '@platform/errors';
import { LogisticsHooksConfig } from '../config';
import { CRM_KINDS, CrmObjectsRepository, type CrmKind } from './crm-objects.repository';
import { crmStats, type CrmData, type CrmObject, type CrmRules, type CrmStats } from './crm-stats';

const list = (s: string | undefined) => (s ?? '').split(',').map((x) => x.trim()).filter(Boolean);

/** The CRM data hub: raw objects stored idempotently by kind and id, read back, and summed up. */
@Injectable()
export class CrmService {
  private readonly rules: CrmRules;

  constructor(
    private readonly transactions: Transactions,
    private readonly objects: CrmObjectsRepository,
    @Inject(LogisticsHooksConfig) private readonly config: LogisticsHooksConfig,
  ) {
    this.rules = { wonStages: list(config.CRM_WON_STAGES), lostStages: list(config.CRM_LOST_STAGES), closedLeadStatuses: list(config.CRM_CLOSED_LEAD_STATUSES) };
  }

  /** Stores (merges) or removes each object, all in one transaction; a malformed push stores nothing (422 naming each bad entry). */
  async push(data: Record<string, unknown> | undefined): Promise<{ stored: Record<CrmKind, number>; deleted: Record<CrmKind, number> }> {
    if (!data) throw new ApiError(422, 'VALIDATION_ERROR', 'push needs data', { errors: [{ field: 'data', message: 'data is required for push', code: 'isDefined' }], suggestion: 'Send {"action": "push", "data": {"deals": [{"id": "d1", …}]}}.' });
    const errors: FieldError[] = [];
    const byKind = new Map<CrmKind, { upserts: CrmObject[]; deletes: string[] }>();
    let total = 0;
    for (const key of Object.keys(data)) {
      if (!(CRM_KINDS as readonly string[]).includes(key)) errors.push({ field: `data.${key}`, message: `unknown kind (use ${CRM_KINDS.join(', ')})`, code: 'isIn' });
    }
    for (const kind of CRM_KINDS) {
      const value = data[kind];
      if (value === undefined) continue;
      if (!Array.isArray(value)) {
        errors.push({ field: `data.${kind}`, message: 'must be an array of objects', code: 'isArray' });
        continue;
      }
      const entry = { upserts: [] as CrmObject[], deletes: [] as string[] };
      const seen = new Map<string, number>();
      value.forEach((raw, i) => {
        const field = `data.${kind}[${i}]`;
        if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return void errors.push({ field, message: 'must be an object', code: 'isObject' });
        const o = raw as Record<string, unknown>;
        const id = typeof o.id === 'number' && Number.isFinite(o.id) ? String(o.id) : typeof o.id === 'string' ? o.id.trim() : '';
        if (!id || id.length > 200) return void errors.push({ field: `${field}.id`, message: 'an id (text or number, 1–200 characters) is required', code: 'isNotEmpty' });
        total++;
        // the last mention of an id in one push wins
        if (seen.has(id)) {
          const at = seen.get(id)!;
          if (at >= 0) entry.upserts[at] = { ...entry.upserts[at], ...o, id } as CrmObject;
          if (o.deleted === true) entry.deletes.push(id);
          return;
        }
        if (o.deleted === true) {
          seen.set(id, -1);
          entry.deletes.push(id);
        } else {
          seen.set(id, entry.upserts.length);
          entry.upserts.push({ ...o, id } as CrmObject);
        }
      });
      byKind.set(kind, entry);
    }
    if (total > this.config.CRM_MAX_OBJECTS_PER_PUSH) {
      errors.push({ field: 'data', message: `${total} objects; at most ${this.config.CRM_MAX_OBJECTS_PER_PUSH} per push`, code: 'arrayMaxSize' });
    }
    if (errors.length) throw new ApiError(422, 'VALIDATION_ERROR', `The push has ${errors.length} problem(s); nothing was stored`, { errors: errors.slice(0, 50), suggestion: 'Fix the listed entries and push again (pushes are idempotent).' });
    const zero = () => Object.fromEntries(CRM_KINDS.map((k) => [k, 0])) as Record<CrmKind, number>;
    const stored = zero();
    const deleted = zero();
    await this.transactions.transaction(async () => {
      for (const [kind, { upserts, deletes }] of byKind) {
        const live = upserts.filter((o) => !deletes.includes(o.id));
        stored[kind] = await this.objects.upsert(kind, live);
        deleted[kind] = await this.objects.remove(kind, deletes);
      }
    });
    return { stored, deleted };
  }

  async get(kind: CrmKind | undefined, limit = 1000, offset = 0): Promise<{ data: Partial<CrmData>; counts: Record<CrmKind, number> }> {
    const kinds = kind ? [kind] : CRM_KINDS;
    const data: Partial<CrmData> = {};
    for (const k of kinds) data[k] = await this.objects.list(k, limit, offset);
    return { data, counts: await this.objects.counts() };
  }

  async stats(now = new Date()): Promise<CrmStats> {
    const [accounts, contacts, deals, leads, tasks] = await Promise.all(CRM_KINDS.map((k) => this.objects.all(k)));
    return crmStats({ accounts, contacts, deals, leads, tasks }, this.rules, now);
  }
}
