import { createHmac } from 'node:crypto';
import { hmacSignature, verifyHmacSignature } from './hmac';

describe('hmacSignature', () => {
  const body = JSON.stringify({ event: 'email_captured', email: 'a@example.com' });

  it('is sha256=<hex HMAC-SHA256 of the body>', () => {
    const expected = createHmac('sha256', 's3cret').update(body).digest('hex');
    expect(hmacSignature(body, 's3cret')).toBe(`sha256=${expected}`);
    expect(hmacSignature(Buffer.from(body), 's3cret')).toBe(`sha256=${expected}`);
  });

  it('verifies its own signature', () => {
    expect(verifyHmacSignature(body, 's3cret', hmacSignature(body, 's3cret'))).toBe(true);
  });

  it('rejects another secret, another body and malformed headers', () => {
    const sig = hmacSignature(body, 's3cret');
    expect(verifyHmacSignature(body, 'other', sig)).toBe(false);
    expect(verifyHmacSignature(`${body} `, 's3cret', sig)).toBe(false);
    expect(verifyHmacSignature(body, 's3cret', sig.replace('sha256=', 'sha1='))).toBe(false);
    expect(verifyHmacSignature(body, 's3cret', sig.slice(0, -2))).toBe(false);
    expect(verifyHmacSignature(body, 's3cret', `${sig}00`)).toBe(false);
    expect(verifyHmacSignature(body, 's3cret', 'sha256=zz' + sig.slice(9))).toBe(false);
    expect(verifyHmacSignature(body, 's3cret', undefined)).toBe(false);
    expect(verifyHmacSignature(body, 's3cret', '')).toBe(false);
  });

  it('accepts upper-case hex', () => {
    const sig = hmacSignature(body, 'k');
    expect(verifyHmacSignature(body, 'k', `sha256=${sig.slice(7).toUpperCase()}`)).toBe(true);
  });
});
