import { emailIdOfMessageId, parseReturnPath, returnPathOf } from './verp';

const ID = 'eml_0123456789abcdefghij';

describe('return paths', () => {
  it.each<[string, { emailId: string; domain: string } | null]>([
    [returnPathOf(ID, 'Example.COM'), { emailId: ID, domain: 'example.com' }],
    [`BOUNCES+${ID.toUpperCase()}@BOUNCE.example.com`, { emailId: ID, domain: 'example.com' }],
    [`bounces+${ID}@example.com`, null],
    [`bounces+${ID}@bounce.localhost`, null],
    [`bounces+eml_short@bounce.example.com`, null],
    [`someone@bounce.example.com`, null],
    ['no-at-sign', null],
  ])('%s', (address, expected) => {
    expect(parseReturnPath(address)).toEqual(expected);
  });

  it('reads the mail id of its own Message-IDs only', () => {
    expect(emailIdOfMessageId(`<${ID}@example.com>`)).toBe(ID);
    expect(emailIdOfMessageId(`${ID}@email-api`)).toBe(ID);
    expect(emailIdOfMessageId('<abc@example.com>')).toBeNull();
    expect(emailIdOfMessageId(undefined)).toBeNull();
  });
});
