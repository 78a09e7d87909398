import 'reflect-metadata';
import { firstTooDeep, jsonObjectOf, MAX_JSON_DEPTH, PlatformValidationPipe, RejectNulPipe } from '@platform/platform';
import { TrackEventDto } from './dto/track.dto';
import { trackInputOf } from './track-raw-route';

/** What the raw route makes of the bytes: the platform's reading of a JSON object, then the route's own checks. */
const rawInput = (raw: Buffer) => {
  const body = jsonObjectOf(raw);
  return body === undefined ? null : trackInputOf(body);
};

/** What the Nest route's parser, input checks and ValidationPipe make of the body, or null when they refuse it. */
async function nestInput(text: string): Promise<Record<string, unknown> | null> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null || firstTooDeep(body, MAX_JSON_DEPTH) !== null) return null;
  try {
    new RejectNulPipe().transform(body, { type: 'body' });
    const dto = (await new PlatformValidationPipe().transform(body, { type: 'body', metatype: TrackEventDto })) as TrackEventDto;
    return JSON.parse(JSON.stringify({ ...dto })) as Record<string, unknown>;
  } catch {
    return null;
  }
}

const deep = (levels: number): unknown => (levels === 0 ? 1 : { a: deep(levels - 1) });

/** Bodies the raw route answers itself. */
const ACCEPTED: unknown[] = [
  { email: 'ada@example.com', event: 'signed_up' },
  { email: '  Ada@Example.COM ', event: 'a' },
  { email: 'ada@example.com', event: 'x'.repeat(100), subscribed: false, data: {} },
  { email: 'ada@example.com', event: 'paid plan', subscribed: true, data: { plan: 'pro', seats: 3, gone: null, skip: '', coupon: { value: 'W10', persistent: false }, list: [1, 'two', { three: 3 }] } },
  { email: 'ada@example.com', event: 'e', data: { note: 'ok \ud83d\ude00', n: Number.MAX_SAFE_INTEGER, f: -0.5, at: '2026-11-28T10:00:00.000Z' } },
  { email: 'ada@example.com', event: 'e', data: { nested: deep(29) } },
  { data: { Constructor: 1, to_string: 'x', proto: { __x: [] } }, event: 'e', email: 'ada@example.com' },
];

/** Bodies the platform refuses or keeps unusual: each must go to the Nest route. */
const HANDED_ON: string[] = [
  '[{"email":"ada@example.com","event":"e"}]',
  ' {"email":"ada@example.com","event":"e"}',
  '{"email":"ada@example.com","event":"e"',
  '{"email":"ada@example.com","event":"e","extra":1}',
  '{"email":"not-an-email","event":"e"}',
  `{"email":"${'a'.repeat(250)}@example.com","event":"e"}`,
  '{"email":1,"event":"e"}',
  '{"email":"ada@example.com"}',
  '{"email":"ada@example.com","event":""}',
  '{"email":"ada@example.com","event":" e"}',
  '{"email":"ada@example.com","event":"a\\nb"}',
  `{"email":"ada@example.com","event":"${'x'.repeat(101)}"}`,
  '{"email":"ada@example.com","event":"a\\u0000b"}',
  '{"email":"ada\\ud800@example.com","event":"e"}',
  '{"email":"ada@example.com","event":"e","data":{"k\\u0000":1}}',
  '{"email":"ada@example.com","event":"e","data":{"s":"\\ud800"}}',
  '{"email":"ada@example.com","event":"e","subscribed":"true"}',
  '{"email":"ada@example.com","event":"e","subscribed":null}',
  '{"email":"ada@example.com","event":"e","data":null}',
  '{"email":"ada@example.com","event":"e","data":[1]}',
  '{"email":"ada@example.com","event":"e","data":"x"}',
  '{"email":"ada@example.com","event":"e","data":{"n":1e20}}',
  '{"email":"ada@example.com","event":"e","data":{"n":1e400}}',
  '{"email":"ada@example.com","event":"e","data":{"__proto__":{"x":1}}}',
  '{"email":"ada@example.com","event":"e","data":{"constructor":1}}',
  '{"email":"ada@example.com","event":"e","data":{"a":[{"toString":"x"}]}}',
  JSON.stringify({ email: 'ada@example.com', event: 'e', data: { nested: deep(40) } }),
];

describe('POST /v1/track raw route: the bodies it answers itself', () => {
  it.each(ACCEPTED.map((b) => [JSON.stringify(b)]))('answers %s with the input the Nest route would record', async (text) => {
    const fast = rawInput(Buffer.from(text));
    expect(fast).not.toBeNull();
    expect(JSON.parse(JSON.stringify(fast))).toEqual(await nestInput(text));
  });

  it.each(HANDED_ON.map((t) => [t]))('hands %s to the Nest route', (text) => {
    expect(rawInput(Buffer.from(text))).toBeNull();
  });

  it('hands on only what the Nest route refuses, or accepts as something unusual', async () => {
    const refused = await Promise.all(HANDED_ON.map(async (text) => [text, await nestInput(text)] as const));
    // Accepted by the Nest route though handed on: white space first, null optional fields, keys its DTO copy drops.
    expect(refused.filter(([, input]) => input !== null).map(([text]) => text)).toEqual([
      ' {"email":"ada@example.com","event":"e"}',
      '{"email":"ada@example.com","event":"e","subscribed":null}',
      '{"email":"ada@example.com","event":"e","data":null}',
      '{"email":"ada@example.com","event":"e","data":{"__proto__":{"x":1}}}',
      '{"email":"ada@example.com","event":"e","data":{"constructor":1}}',
      '{"email":"ada@example.com","event":"e","data":{"a":[{"toString":"x"}]}}',
    ]);
  });
});
