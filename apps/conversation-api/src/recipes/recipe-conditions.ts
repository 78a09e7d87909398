import { withinBusinessHours, type BusinessHours } from '../accounts/business-hours';
import type { Condition, RecipeDefinition } from './recipe-definition';

/** What a recipe's conditions are evaluated against: the conversation as the event left it. */
export interface ConditionContext {
  /** The message's text (message_created), else null. */
  text: string | null;
  messageType: 'incoming' | 'outgoing' | null;
  channelId: string;
  /** The contact's custom attributes, and its name, email, phone and identifier under those keys. */
  contact: Record<string, unknown>;
  labels: string[];
  priority: string | null;
  status: string;
  /** When the event happened (the business-hours clock). */
  at: Date;
  timeZone: string;
  businessHours: BusinessHours | null;
}

/** Text a condition reads is cut here, so a regular expression's cost stays bounded. */
export const MAX_TEXT = 4096;

const patterns = new Map<string, RegExp>();
function regex(pattern: string, caseSensitive: boolean): RegExp {
  const key = `${caseSensitive ? 's' : 'i'}:${pattern}`;
  let re = patterns.get(key);
  if (!re) {
    re = new RegExp(pattern, caseSensitive ? 'u' : 'iu');
    if (patterns.size > 1000) patterns.clear();
    patterns.set(key, re);
  }
  return re;
}

const text = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** Whether one condition holds. */
export function holds(c: Condition, ctx: ConditionContext): boolean {
  switch (c.type) {
    case 'text_contains': {
      if (ctx.text === null) return false;
      const body = ctx.text.slice(0, MAX_TEXT);
      return c.case_sensitive ? body.includes(c.value) : body.toLocaleLowerCase().includes(c.value.toLocaleLowerCase());
    }
    case 'text_matches':
      return ctx.text !== null && regex(c.pattern, c.case_sensitive === true).test(ctx.text.slice(0, MAX_TEXT));
    case 'channel':
      return c.channel_ids.includes(ctx.channelId);
    case 'contact_attribute': {
      const value = ctx.contact[c.key];
      const present = value !== undefined && value !== null && value !== '';
      switch (c.operator) {
        case 'present':
          return present;
        case 'absent':
          return !present;
        case 'equals':
          return present && text(value).toLocaleLowerCase() === text(c.value).toLocaleLowerCase();
        case 'not_equals':
          return !present || text(value).toLocaleLowerCase() !== text(c.value).toLocaleLowerCase();
        case 'contains':
          return present && text(value).toLocaleLowerCase().includes(text(c.value).toLocaleLowerCase());
      }
      return false;
    }
    case 'label': {
      const has = ctx.labels.some((l) => l.toLowerCase() === c.label.toLowerCase());
      return c.operator === 'has' ? has : !has;
    }
    case 'priority':
      return c.priorities.includes((ctx.priority ?? 'none') as never);
    case 'status':
      return c.statuses.includes(ctx.status as never);
    case 'message_type':
      return ctx.messageType !== null && c.message_types.includes(ctx.messageType);
    case 'business_hours':
      return withinBusinessHours(ctx.businessHours, ctx.timeZone, ctx.at) === c.within;
  }
}

/** Whether the recipe's conditions hold: all of them (`match: all`, none → true) or any one (`match: any`). */
export function conditionsHold(d: Pick<RecipeDefinition, 'match' | 'conditions'>, ctx: ConditionContext): boolean {
  if (!d.conditions.length) return true;
  return d.match === 'any' ? d.conditions.some((c) => holds(c, ctx)) : d.conditions.every((c) => holds(c, ctx));
}
