import { RejectNulPipe, type RawExchange, type RawRoute } from '@platform/platform';
import { isBoolean, isEmail, isObject, isString, matches, maxLength, minLength } from 'class-validator';
import type { AccessRequest, ProjectAccessGuard } from '../access/project-access.guard';
import { assertDataKeys } from '../contacts/contacts.service';
import { EVENT_NAME, MAX_EVENT_NAME, MAX_TRACK_EMAIL, trackEmail } from './dto/track.dto';
import { TRACK_ACCESS, trackAnswer } from './track.controller';
import type { TrackInput, TrackService } from './track.service';

/** `POST /v1/track`, with or without a query; any other spelling of the path goes through TrackController. */
const TRACK_PATH = /^\/v1\/track(?:\?|$)/;
/** Bodies read here at most; a larger one (up to the app's body limit) goes through Express. */
const MAX_BYTES = 64 * 1024;
const FIELDS = new Set(['email', 'event', 'subscribed', 'data']);
const rejectNul = new RejectNulPipe();

/**
 * True when every number in `value` is one the platform's ValidationPipe lets through (finite,
 * within ±Number.MAX_SAFE_INTEGER) and no key is the name of an Object.prototype member
 * (`constructor`, `toString`, `__proto__`…), which copying the body into the DTO
 * (class-transformer) leaves out. Iterative: the depth is checked before.
 */
function plainValues(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const item = stack.pop();
    if (typeof item === 'number') {
      if (!Number.isFinite(item) || Math.abs(item) > Number.MAX_SAFE_INTEGER) return false;
    } else if (item !== null && typeof item === 'object') {
      for (const key of Object.keys(item)) {
        if (key in Object.prototype) return false;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return true;
}

/**
 * The input of a `POST /v1/track` body (an object as the platform's parser read it: `jsonObjectOf`)
 * when the platform's input checks (text PostgreSQL can store) and ValidationPipe with TrackEventDto
 * would accept it as it is, transformed as they would (`email` trimmed and lower-case); null for
 * anything else — refused, or merely unusual (`null` for an optional field, a key the DTO copy
 * drops) — which the Nest route then answers.
 */
export function trackInputOf(body: Record<string, unknown>): TrackInput | null {
  for (const key of Object.keys(body)) if (!FIELDS.has(key)) return null;
  // First, as the platform: text PostgreSQL cannot store (on which validators may throw).
  if (!plainValues(body)) return null;
  try {
    rejectNul.transform(body, { type: 'body' });
  } catch {
    return null;
  }
  const email = trackEmail(body.email);
  const { event, subscribed, data } = body;
  if (!isEmail(email) || !maxLength(email, MAX_TRACK_EMAIL)) return null;
  if (!isString(event) || !minLength(event, 1) || !maxLength(event, MAX_EVENT_NAME) || !matches(event, EVENT_NAME)) return null;
  if (subscribed !== undefined && !isBoolean(subscribed)) return null;
  if (data !== undefined && !isObject(data)) return null;
  return {
    email: email as string,
    event,
    ...(subscribed !== undefined ? { subscribed } : {}),
    ...(data !== undefined ? { data: data as Record<string, unknown> } : {}),
  };
}

/**
 * `POST /v1/track` answered before Express and Nest (@platform/platform's installRawRoutes), with
 * TrackController's work and answers: a JSON body (UTF-8, not compressed, with a Content-Length, up
 * to 64 kB) that TrackEventDto accepts as it is ({@link trackInputOf}) is authenticated by
 * ProjectAccessGuard itself (key, disabled project, rate limit and its headers), its data keys
 * checked, then recorded by TrackService (answered once committed) as `{success, data}`; errors go
 * through the app's error filter. Everything else — an Idempotency-Key, another content type or
 * encoding, a chunked or large body (RawExchange.readJsonObject), a body the parser or validation would
 * refuse or that is unusual — goes to Express with the body replayed, before anything was checked or
 * counted, so that the Nest route answers it whole.
 */
export function trackRawRoute(access: ProjectAccessGuard, tracking: TrackService): RawRoute {
  return {
    match: (method, url) => (method === 'POST' && TRACK_PATH.test(url) ? '/v1/track' : null),
    handle: ({ req, res, json, fail, handOn, readJsonObject }: RawExchange) => {
      // A retry with an Idempotency-Key: the Nest route's idempotency store answers it.
      if (req.headers['idempotency-key'] !== undefined) return handOn();
      const record = (body: Record<string, unknown>, raw: Buffer) => {
        const input = trackInputOf(body);
        if (!input) return handOn(raw);
        (async () => {
          const ctx = await access.authorize(req as AccessRequest, res, TRACK_ACCESS);
          assertDataKeys(input.data);
          return trackAnswer(await tracking.track(ctx.project.id, input, req.id));
        })().then((answer) => {
          try {
            json(200, answer);
          } catch (err) {
            fail(err);
          }
        }, fail);
      };
      readJsonObject(MAX_BYTES, record);
    },
  };
}
