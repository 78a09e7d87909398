import { isReservedEventName, splitTrackData } from './event';

describe('event rules', () => {
  it.each([
    ['email.opened', true],
    ['contact.subscribed', true],
    ['contact.unsubscribed', true],
    ['segment.vip.entry', true],
    ['segment.vip.exit', true],
    ['segment.vip.other', false],
    ['signed_up', false],
    ['emails.sent', false],
  ])('%s reserved: %s', (name, reserved) => {
    expect(isReservedEventName(name)).toBe(reserved);
  });

  it('keeps non-persistent values on the event only', () => {
    expect(splitTrackData({ plan: 'pro', coupon: { value: 'X', persistent: false }, gone: null, blank: '', obj: { value: 1 } })).toEqual({
      contact: { plan: 'pro', gone: null, blank: '', obj: { value: 1 } },
      event: { plan: 'pro', coupon: 'X', obj: { value: 1 } },
    });
    expect(splitTrackData(undefined)).toEqual({ contact: {}, event: {} });
  });
});
