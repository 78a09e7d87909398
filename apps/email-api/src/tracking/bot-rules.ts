import type { MailEventFlag } from '../mail-events/mail-event';

/**
 * Opens fetched by a mail privacy proxy or an image prefetcher, not a person. Apple Mail Privacy
 * Protection fetches every image through Apple's proxies at delivery with the bare agent
 * `Mozilla/5.0` (no platform, no engine); requests from Apple's own network 17.0.0.0/8 are its
 * proxies too. Prefetchers name themselves (`YahooMailProxy`, `…bot`, `crawler`, `spider`,
 * `preview`, `prefetch`). A fetch within PREFETCH_WINDOW_SECONDS of sending is also flagged (the
 * database applies that rule, it knows when the mail was sent). Gmail's `GoogleImageProxy` fetches
 * when the recipient opens the mail, so it counts as a person.
 */
export function openFlag(userAgent: string | undefined, ip: string | undefined): MailEventFlag | null {
  const ua = (userAgent ?? '').trim();
  if (ua === 'Mozilla/5.0') return 'privacy_proxy';
  if (ip && /^(::ffff:)?17\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ip)) return 'privacy_proxy';
  if (/YahooMailProxy|bot\b|crawler|spider|preview|prefetch/i.test(ua)) return 'privacy_proxy';
  return null;
}

/**
 * Clicks by a link scanner (security gateways that follow every link before delivery): a HEAD
 * request, a scanner's agent (Barracuda, Mimecast, Proofpoint, Microsoft's Safe Links / Office
 * preview, `…bot`, `scanner`, `curl`, `python-requests`, no agent at all). The database adds two
 * rules: within SCANNER_WINDOW_SECONDS of sending, and a click on another link of the same mail in
 * the previous 2 seconds (every link at once); campaign stats also leave out the first click of such
 * a burst.
 */
export function clickFlag(method: string, userAgent: string | undefined): MailEventFlag | null {
  if (method.toUpperCase() === 'HEAD') return 'scanner';
  const ua = (userAgent ?? '').trim();
  if (!ua) return 'scanner';
  if (/Barracuda|Mimecast|Proofpoint|SafeLinks|Safe Links|ms-office|Microsoft Office|bot\b|scanner|curl\/|python-requests|Go-http-client|Java\//i.test(ua)) return 'scanner';
  return null;
}
