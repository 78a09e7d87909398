/**
 * The connect page: server-rendered HTML without scripts or outside assets (inline style only), every
 * value escaped. One page shape with a title, paragraphs and an optional form button.
 */
export interface ConnectPage {
  title: string;
  paragraphs: string[];
  /** A POST form with hidden fields and one button. */
  form?: { action: string; fields: Record<string, string>; button: string };
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function renderConnectPage(page: ConnectPage): string {
  const paragraphs = page.paragraphs.map((p) => `    <p>${escapeHtml(p)}</p>`).join('\n');
  const form = page.form
    ? `    <form method="post" action="${escapeHtml(page.form.action)}">\n${Object.entries(page.form.fields)
        .map(([k, v]) => `      <input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
        .join('\n')}\n      <button type="submit">${escapeHtml(page.form.button)}</button>\n    </form>`
    : '';
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="referrer" content="no-referrer">
    <title>${escapeHtml(page.title)}</title>
    <style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}button{font-size:1rem;padding:.6rem 1.2rem;border-radius:.4rem;border:0;background:#d62976;color:#fff;cursor:pointer}</style>
  </head>
  <body>
    <h1>${escapeHtml(page.title)}</h1>
${paragraphs}
${form}
  </body>
</html>
`;
}
