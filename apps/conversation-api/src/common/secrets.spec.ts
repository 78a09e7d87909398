import { randomBytes } from 'node:crypto';
import { SecretBox } from './secrets';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('opens what it sealed, with the same associated data only', () => {
    const sealed = box.seal('{"access_token":"EAAG"}', 'channel-1');
    expect(sealed).not.toContain('EAAG');
    expect(box.open(sealed, 'channel-1')).toBe('{"access_token":"EAAG"}');
    expect(() => box.open(sealed, 'channel-2')).toThrow();
  });

  it('refuses another key and tampered values', () => {
    const sealed = box.seal('secret');
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('other').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() => box.open('plain')).toThrow();
  });
});
