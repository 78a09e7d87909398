import { renderTemplate, unknownVariables } from './template';

describe('canned-response templates', () => {
  const values = {
    contact: { name: 'Kim  Lee Park', email: 'kim@example.com', phone: '+15550001', customAttributes: { plan: 'pro', seats: 3 } },
    agent: { name: 'Alice', email: 'alice@example.com' },
    conversation: { displayId: 42 },
    account: { name: 'Acme' },
  };

  it.each([
    ['Hi {{contact.name}}!', 'Hi Kim  Lee Park!'],
    ['Hi {{ contact.first_name }} / {{contact.last_name}}', 'Hi Kim / Park'],
    ['{{contact.email}} {{contact.phone}}', 'kim@example.com +15550001'],
    ['plan {{contact.custom_attribute.plan}}, {{contact.custom_attribute.seats}} seats, {{contact.custom_attribute.missing}}!', 'plan pro, 3 seats, !'],
    ['{{agent.name}} <{{agent.email}}> for #{{conversation.id}} at {{account.name}}', 'Alice <alice@example.com> for #42 at Acme'],
    ['no variables, {single} braces', 'no variables, {single} braces'],
  ])('renders %j', (template, expected) => {
    expect(renderTemplate(template, values)).toBe(expected);
  });

  it('renders missing values as nothing', () => {
    expect(renderTemplate('Hi {{contact.name}}{{contact.last_name}}, {{agent.name}}', { contact: { name: null } })).toBe('Hi , ');
    expect(renderTemplate('Hi {{contact.first_name}}', {})).toBe('Hi ');
  });

  it('names unknown variables', () => {
    expect(unknownVariables('{{contact.name}} {{contact.password}} {{ user.name }} {{contact.custom_attribute.plan}} {{contact.custom_attribute.}}')).toEqual([
      'contact.password',
      'user.name',
      'contact.custom_attribute.',
    ]);
    expect(unknownVariables('Hello {{contact.name}}')).toEqual([]);
  });
});
