import { parseCreateUserArgs } from './create-user.command';

describe('create-user arguments', () => {
  it('parses a logistics user with role and name', () => {
    expect(
      parseCreateUserArgs(['--realm', 'logistics', '--email', 'op@example.com', '--password', 'longenough', '--role', 'terminal_operator', '--full-name', 'Op One']),
    ).toEqual({ realm: 'logistics', email: 'op@example.com', password: 'longenough', role: 'terminal_operator', fullName: 'Op One' });
  });

  it('defaults the role per realm', () => {
    expect(parseCreateUserArgs(['--realm', 'fiscal', '--email', 'a@example.com', '--password', 'longenough']).role).toBe('user');
    expect(parseCreateUserArgs(['--realm', 'logistics', '--email', 'a@example.com', '--password', 'longenough']).role).toBe('driver');
  });

  it('names every problem at once', () => {
    expect(() => parseCreateUserArgs(['--realm', 'x', '--email', 'nope', '--password', 'short'])).toThrow(
      /--realm must be fiscal or logistics; --email must be an email address; --password must have at least 8 characters/,
    );
    expect(() => parseCreateUserArgs(['--realm', 'logistics', '--email', 'a@example.com', '--password', 'longenough', '--role', 'pilot'])).toThrow(
      /--role must be one of admin, terminal_operator, driver, company_manager/,
    );
  });

  it('refuses unknown options with the usage', () => {
    expect(() => parseCreateUserArgs(['--realm', 'fiscal', '--bogus', 'x'])).toThrow(/usage: create-user/);
  });
});
