import { createHash, createPublicKey, createVerify } from 'node:crypto';

/**
 * Verifies the DKIM-Signature (RFC 6376, rsa-sha256, relaxed or simple canonicalization) of a raw
 * message against a public key as published in DNS (`p=`, base64 SubjectPublicKeyInfo), with
 * node:crypto only. Throws with the reason when it does not verify; answers the signature's tags.
 */
export function verifyDkim(raw: string, publicKeyBase64: string): Record<string, string> {
  const text = raw.replace(/\r?\n/g, '\r\n');
  const split = text.indexOf('\r\n\r\n');
  const head = text.slice(0, split + 2);
  let body = text.slice(split + 4);
  if (!body.endsWith('\r\n')) body += '\r\n';
  const fields: string[] = [];
  for (const line of head.split('\r\n').slice(0, -1)) {
    if (/^[ \t]/.test(line) && fields.length) fields[fields.length - 1] += `\r\n${line}`;
    else fields.push(line);
  }
  const sigField = fields.find((f) => /^dkim-signature:/i.test(f));
  if (!sigField) throw new Error('no DKIM-Signature header');
  const tags = Object.fromEntries(
    sigField
      .slice(sigField.indexOf(':') + 1)
      .split(';')
      .map((t) => t.trim())
      .filter(Boolean)
      .map((t) => [t.slice(0, t.indexOf('=')).trim(), t.slice(t.indexOf('=') + 1).replace(/\s+/g, '')]),
  );
  if (tags.a !== 'rsa-sha256') throw new Error(`unexpected algorithm ${tags.a}`);
  const [headerCanon, bodyCanon = 'simple'] = (tags.c ?? 'simple/simple').split('/');

  const canonBody = bodyCanon === 'relaxed' ? body.split('\r\n').map((l) => l.replace(/[ \t]+/g, ' ').replace(/ +$/, '')).join('\r\n').replace(/(\r\n)*$/, '\r\n') : body.replace(/(\r\n)+$/, '\r\n');
  const bodyHash = createHash('sha256').update(canonBody === '\r\n' && bodyCanon === 'relaxed' ? '' : canonBody).digest('base64');
  if (bodyHash !== tags.bh) throw new Error(`body hash mismatch: ${bodyHash} != ${tags.bh}`);

  const canonHeader = (f: string) => {
    if (headerCanon !== 'relaxed') return f;
    const colon = f.indexOf(':');
    return `${f.slice(0, colon).trim().toLowerCase()}:${f.slice(colon + 1).replace(/\r\n/g, '').replace(/[ \t]+/g, ' ').trim()}`;
  };
  const used = new Set<number>();
  const signed: string[] = [];
  for (const name of tags.h.split(':')) {
    for (let i = fields.length - 1; i >= 0; i--) {
      if (!used.has(i) && fields[i].slice(0, fields[i].indexOf(':')).trim().toLowerCase() === name.trim().toLowerCase()) {
        used.add(i);
        signed.push(`${canonHeader(fields[i])}\r\n`);
        break;
      }
    }
  }
  const sigWithoutB = canonHeader(sigField.replace(/([;:]\s*b=)[^;]*/, '$1'));
  const data = signed.join('') + sigWithoutB;
  const key = createPublicKey({ key: Buffer.from(publicKeyBase64, 'base64'), format: 'der', type: 'spki' });
  const ok = createVerify('RSA-SHA256').update(data).verify(key, Buffer.from(tags.b, 'base64'));
  if (!ok) throw new Error('signature does not verify');
  return tags;
}
