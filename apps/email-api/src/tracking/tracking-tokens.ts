import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed ids of the open pixel and the tracked links. A token is `<mail id>.<hmac>` (pixel) or
 * `<mail id>.<link index>.<hmac>` (link), the HMAC-SHA256 (keyed with the service secret, 128 bits
 * kept) over the kind, the mail id and the index: a changed id or index fails the check, so nobody
 * records opens or clicks for a mail they did not get, nor turns a link into an open redirect.
 */
export class TrackingTokens {
  constructor(private readonly key: Buffer) {}

  open(emailId: string): string {
    return `${emailId}.${this.sign(`o:${emailId}`)}`;
  }

  click(emailId: string, index: number): string {
    return `${emailId}.${index}.${this.sign(`c:${emailId}:${index}`)}`;
  }

  /** The mail id of a valid pixel token, else null. */
  verifyOpen(token: string): string | null {
    const m = /^(eml_[0-9a-z]{1,64})\.([A-Za-z0-9_-]{22})$/.exec(token);
    return m && this.same(m[2], this.sign(`o:${m[1]}`)) ? m[1] : null;
  }

  /** The mail id and link index of a valid link token, else null. */
  verifyClick(token: string): { emailId: string; index: number } | null {
    const m = /^(eml_[0-9a-z]{1,64})\.(0|[1-9][0-9]{0,3})\.([A-Za-z0-9_-]{22})$/.exec(token);
    if (!m) return null;
    const index = Number(m[2]);
    return this.same(m[3], this.sign(`c:${m[1]}:${index}`)) ? { emailId: m[1], index } : null;
  }

  private sign(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url').slice(0, 22);
  }

  private same(a: string, b: string): boolean {
    return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
  }
}

/** Links a tracked mail may carry at most (the rest stay as they are). */
export const MAX_TRACKED_LINKS = 200;

/**
 * Rewrites the `href` of every http(s) link in the HTML to its tracked form and adds the open pixel
 * at the end of the body. `keep(url)` says which links stay untouched (the unsubscribe link: it must
 * work without a redirect, and RFC 8058 one-click needs its own URL). Answers the new HTML and the
 * distinct links in order of first appearance: a tracked link's index points into that list, which
 * the mail keeps so that a click redirects only to a link the mail contained.
 */
export function addTracking(html: string, track: { link: (index: number) => string; pixel: string; keep: (url: string) => boolean }): { html: string; links: string[] } {
  const links: string[] = [];
  const indexOf = new Map<string, number>();
  const rewritten = html.replace(/(<a\b[^>]*?\bhref\s*=\s*)(["'])(https?:\/\/[^"']+)\2/gi, (whole, head: string, quote: string, raw: string) => {
    const url = decodeEntities(raw);
    if (track.keep(url)) return whole;
    let index = indexOf.get(url);
    if (index === undefined) {
      if (links.length >= MAX_TRACKED_LINKS) return whole;
      index = links.push(url) - 1;
      indexOf.set(url, index);
    }
    return `${head}${quote}${track.link(index)}${quote}`;
  });
  const pixel = `<img src="${track.pixel}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0" />`;
  const close = rewritten.search(/<\/body\s*>/i);
  return { html: close >= 0 ? `${rewritten.slice(0, close)}${pixel}${rewritten.slice(close)}` : `${rewritten}${pixel}`, links };
}

/** The entities an href may carry in HTML (`&amp;` above all). */
function decodeEntities(s: string): string {
  return s.replace(/&(amp|quot|#39|lt|gt);/g, (_m, e: string) => ({ amp: '&', quot: '"', '#39': "'", lt: '<', gt: '>' })[e]!);
}
