import { delayMs, parseConditionField, validateStepConfig, validateTriggerConfig, type StepType } from './step-config';

const ID = '3f0c2a9e-4c1b-4d2a-9f59-1b2f8e1c7a10';
const fields = (type: StepType, config: unknown) => validateStepConfig(type, config).map((e) => `${e.field}:${e.code}`);

describe('validateStepConfig', () => {
  it.each<[StepType, unknown]>([
    ['TRIGGER', {}],
    ['SEND_EMAIL', { templateId: ID }],
    ['SEND_EMAIL', { templateId: ID, to: 'team@example.com' }],
    ['DELAY', { amount: 365, unit: 'days' }],
    ['DELAY', { amount: 8760, unit: 'hours' }],
    ['WAIT_FOR_EVENT', { eventName: 'paid' }],
    ['WAIT_FOR_EVENT', { eventName: 'paid', timeout: 86_400 }],
    ['CONDITION', { field: 'contact.email', operator: 'contains', value: '@acme.test' }],
    ['CONDITION', { field: 'contact.subscribed', operator: 'equals', value: false }],
    ['CONDITION', { field: 'contact.data.plan', operator: 'in', value: ['pro', 'team'] }],
    ['CONDITION', { field: 'contact.data.address.city', operator: 'exists' }],
    ['CONDITION', { field: 'event.amount', operator: 'gte', value: 100 }],
    ['CONDITION', { field: `email.${ID}.clicked`, operator: 'not_equals', value: true }],
    ['WEBHOOK', { url: 'https://hooks.example.com/a', method: 'POST', headers: { Authorization: 'Bearer x' }, body: { contact: '{{contact.email}}' } }],
    ['WEBHOOK', { url: 'http://hooks.example.com/a', method: 'GET' }],
    ['UPDATE_CONTACT', { data: { plan: 'pro', old: null } }],
    ['UPDATE_CONTACT', { subscribed: false }],
    ['EXIT', {}],
    ['EXIT', { reason: 'converted' }],
  ])('%s %j is valid', (type, config) => {
    expect(validateStepConfig(type, config)).toEqual([]);
  });

  it.each<[StepType, unknown, string[]]>([
    ['TRIGGER', { eventName: 'x' }, ['config.eventName:unrecognized_key']],
    ['TRIGGER', [], ['config:invalid_type']],
    ['SEND_EMAIL', {}, ['config.templateId:invalid_string']],
    ['SEND_EMAIL', { templateId: ID, to: 'not an address' }, ['config.to:invalid_string']],
    ['DELAY', { amount: 0, unit: 'days' }, ['config.amount:invalid_type']],
    ['DELAY', { amount: 1.5, unit: 'hours' }, ['config.amount:invalid_type']],
    ['DELAY', { amount: 366, unit: 'days' }, ['config.amount:too_big']],
    ['DELAY', { amount: 1, unit: 'weeks' }, ['config.unit:invalid_enum_value']],
    ['WAIT_FOR_EVENT', { eventName: ' padded ' }, ['config.eventName:invalid_string']],
    ['WAIT_FOR_EVENT', { eventName: 'paid', timeout: 365 * 86_400 + 1 }, ['config.timeout:invalid_type']],
    ['CONDITION', { field: 'contact.password', operator: 'equals', value: 'x' }, ['config.field:invalid_string']],
    ['CONDITION', { field: 'contact.data.a b', operator: 'equals', value: 'x' }, ['config.field:invalid_string']],
    ['CONDITION', { field: 'contact.data.plan', operator: 'like', value: 'x' }, ['config.operator:invalid_enum_value']],
    ['CONDITION', { field: 'contact.data.plan', operator: 'exists', value: 'x' }, ['config.value:unrecognized_key']],
    ['CONDITION', { field: 'contact.data.plan', operator: 'in', value: [] }, ['config.value:invalid_type']],
    ['CONDITION', { field: 'contact.data.plan', operator: 'equals', value: { a: 1 } }, ['config.value:invalid_type']],
    ['CONDITION', { field: 'contact.subscribed', operator: 'gt', value: 1 }, ['config.operator:invalid_enum_value']],
    ['CONDITION', { field: `email.${ID}.opened`, operator: 'equals', value: 'yes' }, ['config.value:invalid_type']],
    ['CONDITION', { field: 'email.not-a-step.opened', operator: 'equals', value: true }, ['config.field:invalid_string']],
    ['WEBHOOK', { url: 'file:///etc/passwd', method: 'POST' }, ['config.url:invalid_string']],
    ['WEBHOOK', { url: 'https://u:p@hooks.example.com', method: 'POST' }, ['config.url:invalid_string']],
    ['WEBHOOK', { url: 'https://hooks.example.com', method: 'TRACE' }, ['config.method:invalid_enum_value']],
    ['WEBHOOK', { url: 'https://hooks.example.com', method: 'POST', headers: { Host: 'evil' } }, ['config.headers.Host:reserved_key']],
    ['WEBHOOK', { url: 'https://hooks.example.com', method: 'POST', headers: { 'X-A': 'a\r\nX-B: b' } }, ['config.headers.X-A:invalid_string']],
    ['WEBHOOK', { url: 'https://hooks.example.com', method: 'GET', body: { a: 1 } }, ['config.body:unrecognized_key']],
    ['UPDATE_CONTACT', {}, ['config:too_small']],
    ['UPDATE_CONTACT', { data: { email: 'x@y.z' } }, ['config.data.email:reserved_key']],
    ['UPDATE_CONTACT', { subscribed: 'yes' }, ['config.subscribed:invalid_type']],
    ['EXIT', { reason: '' }, ['config.reason:invalid_string']],
  ])('%s %j → %j', (type, config, expected) => {
    expect(fields(type, config)).toEqual(expected);
  });

  it('caps what a webhook carries', () => {
    expect(fields('WEBHOOK', { url: 'https://h.example.com', method: 'POST', body: 'x'.repeat(64 * 1024 + 1) })).toEqual(['config.body:too_big']);
    const headers = Object.fromEntries(Array.from({ length: 31 }, (_v, i) => [`X-H${i}`, 'v']));
    expect(fields('WEBHOOK', { url: 'https://h.example.com', method: 'POST', headers })).toEqual(['config.headers:too_big']);
  });
});

describe('parseConditionField', () => {
  it('reads the four forms', () => {
    expect(parseConditionField('contact.email')).toEqual({ kind: 'contact', name: 'email' });
    expect(parseConditionField('contact.data.address.city')).toEqual({ kind: 'data', path: ['address', 'city'] });
    expect(parseConditionField('event.plan')).toEqual({ kind: 'event', path: ['plan'] });
    expect(parseConditionField(`email.${ID.toUpperCase()}.opened`)).toEqual({ kind: 'mail', stepId: ID, fact: 'opened' });
    expect(parseConditionField('contact.data.')).toBeNull();
    expect(parseConditionField('event.a.b.c.d.e.f')).toBeNull();
    expect(parseConditionField(`email.${ID}.bounced`)).toBeNull();
  });
});

describe('validateTriggerConfig', () => {
  it('fits the config to the trigger type', () => {
    expect(validateTriggerConfig('EVENT', { eventName: 'signed_up' })).toEqual([]);
    expect(validateTriggerConfig('EVENT', {})).toEqual([]);
    expect(validateTriggerConfig('EVENT', { segmentId: ID }).map((e) => e.field)).toEqual(['triggerConfig.segmentId']);
    expect(validateTriggerConfig('SEGMENT_ENTRY', { segmentId: 'nope' }).map((e) => e.code)).toEqual(['invalid_string']);
    expect(validateTriggerConfig('MANUAL', { eventName: 'x' }).map((e) => e.code)).toEqual(['unrecognized_key']);
  });
});

it('delayMs', () => {
  expect(delayMs({ amount: 2, unit: 'days' })).toBe(172_800_000);
  expect(delayMs({ amount: 90, unit: 'minutes' })).toBe(5_400_000);
});
