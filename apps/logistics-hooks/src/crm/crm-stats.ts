/**
 * The CRM hub's figures (spec, part F: `stats`) from the raw objects pushed. Plain functions; `now`
 * is given. CRM exports differ, so each figure reads the first field present of a documented list:
 *
 * - deal amount: `amount`, `value`, `deal_value` (number or numeric text); probability: `probability`,
 *   `win_probability` (0–1, or a percentage when above 1); stage: `stage`, `dealstage`, `stage_name`,
 *   `status`; owner: `owner`, `owner_name`, `owner_id`, `hubspot_owner_id` (else `unassigned`).
 * - A deal is won when its stage is one of CRM_WON_STAGES, lost when one of CRM_LOST_STAGES (compared
 *   case-insensitively, ignoring spaces, `-` and `_`), open otherwise.
 * - lead status: `status`, `lead_status`; a lead is open unless its status is one of
 *   CRM_CLOSED_LEAD_STATUSES (default converted, disqualified, closed, lost); source: `source`,
 *   `lead_source`, `utm_source` (else `unknown`).
 * - task due date: `due_date`, `due`, `due_at`; done when `completed` / `done` is true or `status` is
 *   one of completed, done, closed.
 *
 * Formulas:
 * - `total_pipeline` = Σ amount of open deals; `weighted_pipeline` = Σ amount × probability of open deals
 * - `win_rate_pct` = won / (won + lost) × 100, one decimal (null when no deal is closed)
 * - `avg_deal_size` = Σ amount of won deals / number of won deals, two decimals (null when none is won)
 * - `open_leads` = leads not closed; `overdue_tasks` = tasks not done whose due date is before `now`
 * - `total_accounts`, `total_contacts` = how many are stored
 * - `stage_breakdown` = per stage `{count, amount}` (every deal); `lead_sources` = leads per source;
 *   `pipeline_by_owner` = per owner of open deals `{count, amount, weighted}`
 */

export type CrmObject = Record<string, unknown> & { id: string };

export interface CrmData {
  accounts: CrmObject[];
  contacts: CrmObject[];
  deals: CrmObject[];
  leads: CrmObject[];
  tasks: CrmObject[];
}

export interface CrmRules {
  wonStages: string[];
  lostStages: string[];
  closedLeadStatuses: string[];
}

export interface CrmStats {
  total_pipeline: number;
  weighted_pipeline: number;
  win_rate_pct: number | null;
  avg_deal_size: number | null;
  open_leads: number;
  overdue_tasks: number;
  total_accounts: number;
  total_contacts: number;
  stage_breakdown: Record<string, { count: number; amount: number }>;
  lead_sources: Record<string, number>;
  pipeline_by_owner: Record<string, { count: number; amount: number; weighted: number }>;
}

export const normalizeName = (s: string): string => s.toLowerCase().replace(/[\s_-]+/g, '');
const round = (n: number, d: number) => Math.round(n * 10 ** d) / 10 ** d;

function first(o: CrmObject, fields: string[]): unknown {
  for (const f of fields) if (o[f] !== undefined && o[f] !== null && o[f] !== '') return o[f];
  return undefined;
}

export function numberOf(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string') {
    const n = Number(v.replace(/[\s,$€£]/g, ''));
    return v.trim() !== '' && Number.isFinite(n) ? n : null;
  }
  return null;
}

function textOf(v: unknown): string | null {
  if (typeof v === 'string' && v.trim()) return v.trim();
  if (typeof v === 'number') return String(v);
  if (v && typeof v === 'object' && typeof (v as Record<string, unknown>).name === 'string') return ((v as Record<string, unknown>).name as string).trim() || null;
  return null;
}

export function probabilityOf(deal: CrmObject): number {
  const p = numberOf(first(deal, ['probability', 'win_probability']));
  if (p === null || p < 0) return 0;
  return Math.min(1, p > 1 ? p / 100 : p);
}

export function dealState(deal: CrmObject, rules: CrmRules): 'won' | 'lost' | 'open' {
  const stage = textOf(first(deal, ['stage', 'dealstage', 'stage_name', 'status']));
  if (!stage) return 'open';
  const s = normalizeName(stage);
  if (rules.wonStages.some((w) => normalizeName(w) === s)) return 'won';
  if (rules.lostStages.some((l) => normalizeName(l) === s)) return 'lost';
  return 'open';
}

function taskDone(task: CrmObject): boolean {
  if (task.completed === true || task.done === true) return true;
  const status = textOf(task.status);
  return status !== null && ['completed', 'done', 'closed'].includes(normalizeName(status));
}

export function crmStats(data: CrmData, rules: CrmRules, now: Date): CrmStats {
  let total = 0;
  let weighted = 0;
  let won = 0;
  let lost = 0;
  let wonAmount = 0;
  const stages: CrmStats['stage_breakdown'] = {};
  const owners: CrmStats['pipeline_by_owner'] = {};
  for (const deal of data.deals) {
    const amount = numberOf(first(deal, ['amount', 'value', 'deal_value'])) ?? 0;
    const state = dealState(deal, rules);
    const stage = textOf(first(deal, ['stage', 'dealstage', 'stage_name', 'status'])) ?? 'unknown';
    stages[stage] ??= { count: 0, amount: 0 };
    stages[stage].count++;
    stages[stage].amount = round(stages[stage].amount + amount, 2);
    if (state === 'won') {
      won++;
      wonAmount += amount;
    } else if (state === 'lost') {
      lost++;
    } else {
      const w = amount * probabilityOf(deal);
      total += amount;
      weighted += w;
      const owner = textOf(first(deal, ['owner', 'owner_name', 'owner_id', 'hubspot_owner_id'])) ?? 'unassigned';
      owners[owner] ??= { count: 0, amount: 0, weighted: 0 };
      owners[owner].count++;
      owners[owner].amount = round(owners[owner].amount + amount, 2);
      owners[owner].weighted = round(owners[owner].weighted + w, 2);
    }
  }
  const closedLead = new Set(rules.closedLeadStatuses.map(normalizeName));
  let openLeads = 0;
  const sources: Record<string, number> = {};
  for (const lead of data.leads) {
    const status = textOf(first(lead, ['status', 'lead_status']));
    if (!status || !closedLead.has(normalizeName(status))) openLeads++;
    const source = textOf(first(lead, ['source', 'lead_source', 'utm_source'])) ?? 'unknown';
    sources[source] = (sources[source] ?? 0) + 1;
  }
  let overdue = 0;
  for (const task of data.tasks) {
    if (taskDone(task)) continue;
    const due = first(task, ['due_date', 'due', 'due_at']);
    const t = typeof due === 'string' || typeof due === 'number' ? new Date(due).getTime() : NaN;
    if (!Number.isNaN(t) && t < now.getTime()) overdue++;
  }
  return {
    total_pipeline: round(total, 2),
    weighted_pipeline: round(weighted, 2),
    win_rate_pct: won + lost > 0 ? round((won / (won + lost)) * 100, 1) : null,
    avg_deal_size: won > 0 ? round(wonAmount / won, 2) : null,
    open_leads: openLeads,
    overdue_tasks: overdue,
    total_accounts: data.accounts.length,
    total_contacts: data.contacts.length,
    stage_breakdown: stages,
    lead_sources: sources,
    pipeline_by_owner: owners,
  };
}
