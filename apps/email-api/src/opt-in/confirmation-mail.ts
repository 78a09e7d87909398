import { escapeHtml, renderTemplate } from '../emails/render';

/** The built-in confirmation mail: the project's template is gone, or its sender domain no longer verified. */
export const DEFAULT_CONFIRMATION = {
  subject: 'Please confirm your subscription',
  body:
    '<p>Hello,</p><p>Please confirm that you want to receive email at {{email}}.</p>' +
    '<p><a href="{{confirmUrl}}">Confirm my subscription</a></p>' +
    '<p>If you did not sign up, ignore this email: you will not be subscribed.</p>',
};

/** Whether a template body places the link itself (`{{confirmUrl}}`, with or without a default). */
export function placesConfirmUrl(body: string): boolean {
  return /\{\{\s*confirmUrl\s*(\?\?[^}]*)?\}\}/.test(body);
}

/**
 * Renders the confirmation mail from a template (subject and body) for a contact: the placeholders
 * of every mail (`email`, `id`, the custom fields as `x` and `data.x`) plus `confirmUrl`. A body
 * without `{{confirmUrl}}` gets the link appended (before `</body>` when there is one), so that a
 * template can never send a confirmation nobody can confirm.
 */
export function renderConfirmation(
  template: { subject: string; body: string },
  contact: { id: string; email: string; data: Record<string, unknown> },
  confirmUrl: string,
): { subject: string; html: string } {
  const vars = { ...contact.data, data: contact.data, email: contact.email, id: contact.id, confirmUrl };
  let html = renderTemplate(template.body, vars, true);
  if (!placesConfirmUrl(template.body)) {
    const link = `<p><a href="${escapeHtml(confirmUrl)}">Confirm my subscription</a></p>`;
    const close = html.search(/<\/body\s*>/i);
    html = close >= 0 ? `${html.slice(0, close)}${link}${html.slice(close)}` : `${html}${link}`;
  }
  return { subject: renderTemplate(template.subject, vars, false), html };
}
