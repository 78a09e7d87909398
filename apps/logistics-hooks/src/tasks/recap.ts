/**
 * The extractive briefing of a set of emails (used without a model, and when the model fails): each
 * email classified by the rules, listed by priority (HIGH first, then in the order given), one line
 * each with its category, sender, summary and shipment references, under a headline with the counts.
 */
import { classifyEmail } from './classifier';
import { PRIORITIES, type Category, type Priority } from './task-values';

export interface RecapEmail {
  from: string;
  subject: string;
  body: string;
}

export interface RecapItem {
  from: string;
  subject: string;
  priority: Priority;
  category: Category;
  summary: string;
  shipment_ref: string | null;
}

export function recapItems(emails: RecapEmail[], receivedAt: Date): RecapItem[] {
  const items = emails.map((e) => {
    const c = classifyEmail({ ...e, receivedAt });
    return { from: e.from, subject: e.subject, priority: c.priority, category: c.category, summary: c.summary, shipment_ref: c.shipment_ref };
  });
  const rank = (p: Priority) => PRIORITIES.indexOf(p);
  return items.map((item, i) => ({ item, i })).sort((a, b) => rank(a.item.priority) - rank(b.item.priority) || a.i - b.i).map((x) => x.item);
}

export function extractiveBriefing(items: RecapItem[]): string {
  const count = (p: Priority) => items.filter((i) => i.priority === p).length;
  const headline = `${items.length} email${items.length === 1 ? '' : 's'}: ${count('HIGH')} high, ${count('MEDIUM')} medium, ${count('LOW')} low priority.`;
  const lines = items.map(
    (i) => `- [${i.priority}] ${i.category}: ${i.summary} (from ${i.from}${i.shipment_ref ? `; ${i.shipment_ref}` : ''})`,
  );
  return [headline, ...lines].join('\n');
}
