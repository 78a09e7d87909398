import { OPT_IN_LINK_TTL_SECONDS, OptInTokens } from './opt-in-tokens';

const tokens = new OptInTokens(Buffer.from('k'.repeat(32)));
const other = new OptInTokens(Buffer.from('x'.repeat(32)));
const PROJECT = '00000000-0000-4000-8000-000000000001';
const CONTACT = 'cnt_0a1b2c3d4e5f6g7h8i9j';
const at = new Date('2026-11-28T10:00:00Z');
const later = (seconds: number) => new Date(at.getTime() + seconds * 1000);

describe('OptInTokens', () => {
  it('verifies its own token for the contact and project until it expires', () => {
    const token = tokens.token(PROJECT, CONTACT, at);
    expect(tokens.contactOf(token)).toBe(CONTACT);
    expect(tokens.verify(token, PROJECT, at)).toEqual({ status: 'valid', contactId: CONTACT });
    expect(tokens.verify(token, PROJECT, later(OPT_IN_LINK_TTL_SECONDS - 1))).toEqual({ status: 'valid', contactId: CONTACT });
    expect(tokens.verify(token, PROJECT, later(OPT_IN_LINK_TTL_SECONDS))).toEqual({ status: 'expired', contactId: CONTACT });
  });

  it('refuses another project, a changed contact or expiry, another key and malformed tokens', () => {
    const token = tokens.token(PROJECT, CONTACT, at);
    const [contact, expires, signature] = token.split('.');
    expect(tokens.verify(token, '00000000-0000-4000-8000-000000000002', at)).toEqual({ status: 'invalid' });
    expect(tokens.verify(`cnt_0a1b2c3d4e5f6g7h8i9k.${expires}.${signature}`, PROJECT, at)).toEqual({ status: 'invalid' });
    // pushing the expiry out breaks the signature
    expect(tokens.verify(`${contact}.${(parseInt(expires, 36) + 86_400).toString(36)}.${signature}`, PROJECT, at)).toEqual({ status: 'invalid' });
    expect(tokens.verify(other.token(PROJECT, CONTACT, at), PROJECT, at)).toEqual({ status: 'invalid' });
    for (const bad of ['', 'nonsense', `${contact}.${expires}`, `${contact}.${expires}.${signature}x`, `evt_1.${expires}.${signature}`, `${contact}.-1.${signature}`]) {
      expect(tokens.verify(bad, PROJECT, at)).toEqual({ status: 'invalid' });
    }
    expect(tokens.contactOf('nonsense')).toBeNull();
  });

  it('a forged token is invalid, not expired, even with a past expiry', () => {
    const forged = `${CONTACT}.${Math.floor(at.getTime() / 1000 - 10).toString(36)}.${'A'.repeat(22)}`;
    expect(tokens.verify(forged, PROJECT, at)).toEqual({ status: 'invalid' });
  });
});
