/**
 * Canned-response variables, Chatwoot's style: `{{contact.name}}`, `{{contact.first_name}}`,
 * `{{contact.last_name}}`, `{{contact.email}}`, `{{contact.phone}}`,
 * `{{contact.custom_attribute.<key>}}`, `{{agent.name}}`, `{{agent.email}}`, `{{conversation.id}}`
 * (the account's conversation number) and `{{account.name}}`. Spaces inside the braces are allowed;
 * a value that is not known renders as nothing.
 */
export const TEMPLATE_VARIABLES = [
  'contact.name',
  'contact.first_name',
  'contact.last_name',
  'contact.email',
  'contact.phone',
  'contact.custom_attribute.<key>',
  'agent.name',
  'agent.email',
  'conversation.id',
  'account.name',
] as const;

const VARIABLE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const CUSTOM = /^contact\.custom_attribute\.[A-Za-z0-9_]{1,100}$/;

export interface TemplateValues {
  contact?: { name?: string | null; email?: string | null; phone?: string | null; customAttributes?: Record<string, unknown> } | null;
  agent?: { name?: string | null; email?: string | null } | null;
  conversation?: { displayId?: number | null } | null;
  account?: { name?: string | null } | null;
}

/** The variables of `template` that are not known (an empty list when every one is). */
export function unknownVariables(template: string): string[] {
  const unknown = new Set<string>();
  for (const [, name] of template.matchAll(VARIABLE)) {
    if (!(TEMPLATE_VARIABLES as readonly string[]).includes(name) && !CUSTOM.test(name)) unknown.add(name);
  }
  return [...unknown];
}

function valueOf(name: string, v: TemplateValues): string {
  const full = v.contact?.name?.trim() ?? '';
  const scalar = (x: unknown) => (x === null || x === undefined ? '' : typeof x === 'object' ? JSON.stringify(x) : String(x));
  switch (name) {
    case 'contact.name':
      return full;
    case 'contact.first_name':
      return full.split(/\s+/)[0] ?? '';
    case 'contact.last_name':
      return full.includes(' ') ? full.slice(full.lastIndexOf(' ') + 1) : '';
    case 'contact.email':
      return scalar(v.contact?.email);
    case 'contact.phone':
      return scalar(v.contact?.phone);
    case 'agent.name':
      return scalar(v.agent?.name);
    case 'agent.email':
      return scalar(v.agent?.email);
    case 'conversation.id':
      return scalar(v.conversation?.displayId);
    case 'account.name':
      return scalar(v.account?.name);
    default:
      if (CUSTOM.test(name)) return scalar(v.contact?.customAttributes?.[name.slice('contact.custom_attribute.'.length)]);
      return '';
  }
}

/** The template with each variable replaced by its value (unknown or missing values: nothing). */
export function renderTemplate(template: string, values: TemplateValues): string {
  return template.replace(VARIABLE, (_m, name: string) => valueOf(name, values));
}
