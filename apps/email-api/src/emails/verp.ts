/**
 * The return path of a sent mail (VERP): `bounces+<email id>@bounce.<sending domain>`. The mail's id
 * in the envelope sender comes back as the recipient of its bounces (RFC 3464 DSNs go to the
 * envelope sender) and as `Original-Mail-From` of feedback reports, which is how a report is matched
 * to its mail. Ids are random (about 103 bits), so an address that names a mail cannot be guessed.
 */
import { RETURN_PATH_LABEL } from '../domains/domain';

export const RETURN_PATH_LOCAL_PREFIX = 'bounces+';
/** The return-path host is `bounce.<domain>`, the host the domain's MX record names. */
export const RETURN_PATH_HOST_LABEL = RETURN_PATH_LABEL;

const EMAIL_ID = /^eml_[0-9a-z]{20}$/;

/** The envelope sender of mail `emailId` sent from `domain`. */
export function returnPathOf(emailId: string, domain: string): string {
  return `${RETURN_PATH_LOCAL_PREFIX}${emailId}@${RETURN_PATH_HOST_LABEL}.${domain.toLowerCase()}`;
}

/** `bounces+eml_…@bounce.example.com` → `{emailId, domain: 'example.com'}`; null for any other address. */
export function parseReturnPath(address: string): { emailId: string; domain: string } | null {
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  const local = address.slice(0, at).toLowerCase();
  const host = address.slice(at + 1).toLowerCase();
  if (!local.startsWith(RETURN_PATH_LOCAL_PREFIX) || !host.startsWith(`${RETURN_PATH_HOST_LABEL}.`)) return null;
  const emailId = local.slice(RETURN_PATH_LOCAL_PREFIX.length);
  const domain = host.slice(RETURN_PATH_HOST_LABEL.length + 1);
  if (!EMAIL_ID.test(emailId) || !domain.includes('.')) return null;
  return { emailId, domain };
}

/** The mail id inside a Message-ID this service wrote (`<eml_…@domain>`), or null. */
export function emailIdOfMessageId(messageId: string | undefined | null): string | null {
  if (!messageId) return null;
  const m = /^\s*<?(eml_[0-9a-z]{20})@[^>\s]+>?\s*$/.exec(messageId);
  return m ? m[1] : null;
}
