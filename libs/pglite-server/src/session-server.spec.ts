import { endsUnit } from './session-server';

describe('endsUnit', () => {
  const msg = (type: string) => Buffer.from([type.charCodeAt(0), 0, 0, 0, 4]);
  it.each(['S', 'Q', 'X'])('frees the session after %s', (type) => expect(endsUnit(msg(type))).toBe(true));
  it.each(['P', 'B', 'D', 'E', 'C', 'H'])('keeps the session after %s', (type) => expect(endsUnit(msg(type))).toBe(false));
  it('frees it after the startup message', () => {
    const startup = Buffer.alloc(9);
    startup.writeInt32BE(9, 0);
    startup.writeInt32BE(196_608, 4);
    expect(endsUnit(startup)).toBe(true);
  });
  it('does not take a message whose first bytes only look like a length for a startup message', () => {
    const parse = Buffer.from([0x50, 0, 0, 0, 9, 0, 3, 0, 0]);
    expect(endsUnit(parse)).toBe(false);
  });
});
