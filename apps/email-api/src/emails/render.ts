/**
 * `{{name}}`, `{{data.plan}}`, `{{name ?? "friend"}}` placeholders in subjects and bodies, filled
 * from the contact (`email`, `id`, `subscribed`, its custom fields both as `x` and `data.x`), the
 * request's `data`, and links such as `unsubscribeUrl`. Values are HTML-escaped in bodies.
 * An unknown placeholder without a default renders empty.
 */
export function renderTemplate(text: string, vars: Record<string, unknown>, escape: boolean): string {
  return text.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*(?:\?\?\s*(?:"([^"]*)"|'([^']*)'|([^}\s]+)))?\s*\}\}/g, (_m, path: string, d1?: string, d2?: string, d3?: string) => {
    const value = lookup(vars, path);
    const out = value === undefined || value === null || value === '' ? (d1 ?? d2 ?? d3 ?? '') : typeof value === 'object' ? JSON.stringify(value) : String(value);
    return escape ? escapeHtml(out) : out;
  });
}

function lookup(vars: Record<string, unknown>, path: string): unknown {
  if (path in vars) return vars[path];
  let current: unknown = vars;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
