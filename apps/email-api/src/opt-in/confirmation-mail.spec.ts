import { DEFAULT_CONFIRMATION, placesConfirmUrl, renderConfirmation } from './confirmation-mail';

const contact = { id: 'cnt_1', email: 'ada@example.com', data: { name: 'Ada <3' } };
const URL = 'https://mail.example.test/confirm/cnt_1.abc.sig?x=1&y=2';

describe('confirmation mail', () => {
  it('fills confirmUrl and the contact fields, escaping values in the body', () => {
    const mail = renderConfirmation({ subject: 'Confirm, {{name}}', body: '<p>Hi {{name}}</p><a href="{{confirmUrl}}">yes</a>' }, contact, URL);
    expect(mail.subject).toBe('Confirm, Ada <3');
    expect(mail.html).toBe('<p>Hi Ada &lt;3</p><a href="https://mail.example.test/confirm/cnt_1.abc.sig?x=1&amp;y=2">yes</a>');
  });

  it('appends the link to a template without {{confirmUrl}}, before </body> when there is one', () => {
    expect(renderConfirmation({ subject: 's', body: '<p>Welcome</p>' }, contact, URL).html).toBe(
      '<p>Welcome</p><p><a href="https://mail.example.test/confirm/cnt_1.abc.sig?x=1&amp;y=2">Confirm my subscription</a></p>',
    );
    expect(renderConfirmation({ subject: 's', body: '<html><body><p>W</p></BODY></html>' }, contact, URL).html).toBe(
      '<html><body><p>W</p><p><a href="https://mail.example.test/confirm/cnt_1.abc.sig?x=1&amp;y=2">Confirm my subscription</a></p></BODY></html>',
    );
  });

  it.each([
    ['{{confirmUrl}}', true],
    ['{{ confirmUrl }}', true],
    ['{{confirmUrl ?? "x"}}', true],
    ['{{confirmUrlx}}', false],
    ['confirmUrl', false],
    ['{{data.confirmUrl}}', false],
  ])('placesConfirmUrl(%s) = %s', (body, expected) => {
    expect(placesConfirmUrl(body)).toBe(expected);
  });

  it('the built-in mail places the link and names the address', () => {
    const mail = renderConfirmation(DEFAULT_CONFIRMATION, contact, URL);
    expect(mail.html).toContain('ada@example.com');
    expect(mail.html.match(/confirm\/cnt_1/g)).toHaveLength(1);
  });
});
