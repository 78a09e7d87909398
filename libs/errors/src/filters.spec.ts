import {
  BadGatewayException,
  ConflictException,
  ForbiddenException,
  HttpException,
  Logger,
  NotFoundException,
  UnauthorizedException,
  type ArgumentsHost,
} from '@nestjs/common';
import { IsEmail, IsInt, Max, ValidateNested, validateSync } from 'class-validator';
import { plainToInstance, Type } from 'class-transformer';
import { ApiError } from './api-error';
import { DetailErrorFilter } from './detail-error.filter';
import { EnvelopeErrorFilter } from './envelope-error.filter';
import { PlainErrorFilter } from './plain-error.filter';
import { MAX_FIELD_ERRORS, RequestValidationException, validationExceptionFactory } from './request-validation.exception';
import type { BaseErrorFilter } from './base-error.filter';

class Item {
  @IsEmail() email: string;
}
class Body {
  @IsInt() @Max(50) limit: number;
  @ValidateNested({ each: true }) @Type(() => Item) items: Item[];
}

function validationError() {
  const body = plainToInstance(Body, { limit: 51, items: [{ email: 'nope' }] });
  return validationExceptionFactory(validateSync(body));
}

interface Captured {
  status: number;
  headers: Record<string, string | number>;
  body: any;
}

function run(filter: BaseErrorFilter, exception: unknown, req: Record<string, unknown> = {}): Captured {
  const captured: Captured = { status: 0, headers: {}, body: undefined };
  const res = {
    headersSent: false,
    writableEnded: false,
    set statusCode(s: number) {
      captured.status = s;
    },
    setHeader(name: string, value: string | number) {
      captured.headers[name.toLowerCase()] = value;
    },
    end(text: string) {
      captured.body = JSON.parse(text);
    },
  };
  const request = { method: 'GET', url: '/x', headers: {}, id: 'req-1', log: { error: jest.fn(), warn: jest.fn() }, ...req };
  const host = {
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => res }),
  } as unknown as ArgumentsHost;
  filter.catch(exception, host);
  return captured;
}

describe('EnvelopeErrorFilter', () => {
  const filter = new EnvelopeErrorFilter();

  it.each([
    [new UnauthorizedException('Invalid API key'), 401, 'UNAUTHORIZED', 'Invalid API key'],
    [new ForbiddenException('Project disabled'), 403, 'FORBIDDEN', 'Project disabled'],
    [new NotFoundException('Contact not found'), 404, 'NOT_FOUND', 'Contact not found'],
    [new ConflictException('Template in use'), 409, 'CONFLICT', 'Template in use'],
    [new HttpException('Too many requests', 429), 429, 'RATE_LIMITED', 'Too many requests'],
    [new BadGatewayException('Upstream failed'), 502, 'BAD_GATEWAY', 'Upstream failed'],
    [new HttpException('Teapot', 418), 418, 'HTTP_418', 'Teapot'],
  ])('renders %p as %i %s', (exception, status, code, message) => {
    const { status: sent, body } = run(filter, exception);
    expect(sent).toBe(status);
    expect(body).toEqual({
      success: false,
      error: { code, message, statusCode: status, requestId: 'req-1', suggestion: expect.any(String) },
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(body.error.suggestion.length).toBeGreaterThan(10);
  });

  it('answers validation failures with 422 and field errors', () => {
    const { status, body } = run(filter, validationError());
    expect(status).toBe(422);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.message).toBe('Validation failed');
    expect(body.error.errors).toEqual(
      expect.arrayContaining([
        { field: 'limit', message: 'limit must not be greater than 50', code: 'too_big' },
        { field: 'items.0.email', message: 'email must be an email', code: 'invalid_string' },
      ]),
    );
  });

  it('keeps an ApiError code, suggestion, field errors and headers', () => {
    const { status, body, headers } = run(
      filter,
      new ApiError(429, 'SEND_THROTTLED', 'Too many emails', { suggestion: 'Wait a minute', headers: { 'Retry-After': '60' } }),
    );
    expect(status).toBe(429);
    expect(headers['retry-after']).toBe('60');
    expect(body.error).toMatchObject({ code: 'SEND_THROTTLED', message: 'Too many emails', suggestion: 'Wait a minute' });
  });

  it('lets the app rename default codes (part C throttling) but never an ApiError code', () => {
    const partC = new EnvelopeErrorFilter({ codes: { 429: 'THROTTLER_LIMIT_EXCEEDED' } });
    expect(run(partC, new HttpException('Too many requests', 429)).body.error.code).toBe('THROTTLER_LIMIT_EXCEEDED');
    expect(run(partC, new ApiError(429, 'OWN_CODE', 'x')).body.error.code).toBe('OWN_CODE');
  });

  it('answers a lost database connection 503 DATABASE_UNAVAILABLE with Retry-After when the app has a database (from a guard as from a handler)', () => {
    const lost = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const filter = new EnvelopeErrorFilter();
    expect(run(filter, lost).status).toBe(500);
    filter.databaseLoss = true;
    const answer = run(filter, lost);
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.body.error).toMatchObject({ code: 'DATABASE_UNAVAILABLE', message: 'The database is unavailable; try again shortly.' });
    expect(run(filter, new Error('boom')).status).toBe(500);
  });

  it('hides unexpected errors behind a 500 and logs them with the request id', () => {
    const log = { error: jest.fn(), warn: jest.fn() };
    const { status, body } = run(filter, new Error('password=hunter2 at db.ts:12'), { log });
    expect(status).toBe(500);
    expect(body.error).toMatchObject({ code: 'INTERNAL_ERROR', message: 'Internal server error', requestId: 'req-1' });
    expect(JSON.stringify(body)).not.toContain('hunter2');
    expect(JSON.stringify(body)).not.toContain('db.ts');
    expect(log.error).toHaveBeenCalledWith({ err: expect.objectContaining({ message: 'password=hunter2 at db.ts:12' }) }, 'Unhandled error on GET /x');
  });

  it('renders body-parser errors: malformed JSON 400, too large 413', () => {
    const parse = Object.assign(new SyntaxError('Unexpected token'), { status: 400, expose: true, type: 'entity.parse.failed' });
    const large = Object.assign(new Error('request entity too large'), { status: 413, expose: true, type: 'entity.too.large' });
    expect(run(filter, parse).body.error).toMatchObject({ code: 'BAD_REQUEST', statusCode: 400 });
    expect(run(filter, large).body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', statusCode: 413 });
  });

  it('creates and echoes a request id when the platform did not set one', () => {
    const { body, headers } = run(filter, new NotFoundException(), { id: undefined });
    expect(body.error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers['x-request-id']).toBe(body.error.requestId);
  });
});

describe('PlainErrorFilter', () => {
  const filter = new PlainErrorFilter();

  it('renders {error} with the status', () => {
    expect(run(filter, new UnauthorizedException('Invalid API key'))).toMatchObject({ status: 401, body: { error: 'Invalid API key' } });
    expect(run(filter, new BadGatewayException('The social platform API failed'))).toMatchObject({
      status: 502,
      body: { error: 'The social platform API failed' },
    });
    expect(run(filter, new HttpException('Too many requests', 429)).status).toBe(429);
  });

  it('answers validation failures with 400 naming each field', () => {
    const { status, body } = run(filter, validationError());
    expect(status).toBe(400);
    expect(body).toEqual({ error: 'limit must not be greater than 50; items.0.email must be an email' });
  });

  it('hides unexpected errors', () => {
    expect(run(filter, new TypeError('x is undefined'))).toMatchObject({ status: 500, body: { error: 'Internal server error' } });
  });
});

describe('DetailErrorFilter', () => {
  const filter = new DetailErrorFilter();

  it('renders {detail} with the status and ApiError headers', () => {
    const { status, body, headers } = run(
      filter,
      new ApiError(401, 'INVALID_CREDENTIALS', 'Incorrect email or password', { headers: { 'WWW-Authenticate': 'Bearer' } }),
    );
    expect(status).toBe(401);
    expect(body).toEqual({ detail: 'Incorrect email or password' });
    expect(headers['www-authenticate']).toBe('Bearer');
  });

  it('answers validation failures with 422 and a readable detail', () => {
    const { status, body } = run(filter, validationError());
    expect(status).toBe(422);
    expect(body.detail).toContain('limit must not be greater than 50');
    expect(body.detail).toContain('items.0.email');
  });

  it('answers unknown routes with 404 and hides unexpected errors', () => {
    expect(run(filter, new NotFoundException('Cannot GET /nope'))).toMatchObject({ status: 404, body: { detail: 'Cannot GET /nope' } });
    expect(run(filter, new RangeError('boom'))).toMatchObject({ status: 500, body: { detail: 'Internal server error' } });
  });
});

describe('capped field error lists', () => {
  /** A whitelisting ValidationPipe's answer to a body of `n` unknown keys: one error per key. */
  const unknownKeys = (n: number) =>
    validationExceptionFactory(
      Array.from({ length: n }, (_v, i) => ({ property: `k${i}`, constraints: { whitelistValidation: `property k${i} should not exist` }, children: [] })),
    );

  it('keeps the first MAX_FIELD_ERRORS errors and counts the rest', () => {
    const e = unknownKeys(20_000);
    expect(e.errors).toHaveLength(MAX_FIELD_ERRORS);
    expect(e.errors[0]).toEqual({ field: 'k0', message: 'property k0 should not exist', code: 'unrecognized_key' });
    expect(e.omitted).toBe(20_000 - MAX_FIELD_ERRORS);
    expect(new RequestValidationException(e.errors).omitted).toBe(0);
  });

  it('envelope: lists MAX_FIELD_ERRORS errors and says in the message how many more there were', () => {
    const { status, body } = run(new EnvelopeErrorFilter(), unknownKeys(20_000));
    expect(status).toBe(422);
    expect(body.error.errors).toHaveLength(MAX_FIELD_ERRORS);
    expect(body.error.message).toBe(`Validation failed (${20_000 - MAX_FIELD_ERRORS} more problems not listed)`);
    expect(JSON.stringify(body).length).toBeLessThan(10_000);
  });

  it('envelope: caps an ApiError\'s own field list the same way', () => {
    const errors = Array.from({ length: 1000 }, (_v, i) => ({ field: `to.${i}`, message: 'bad address', code: 'invalid_string' }));
    const { body } = run(new EnvelopeErrorFilter(), new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', { errors }));
    expect(body.error.errors).toHaveLength(MAX_FIELD_ERRORS);
    expect(body.error.message).toBe(`Validation failed (${1000 - MAX_FIELD_ERRORS} more problems not listed)`);
  });

  it.each([
    ['plain', new PlainErrorFilter(), 400, 'error'],
    ['detail', new DetailErrorFilter(), 422, 'detail'],
  ])('%s: names the first MAX_FIELD_ERRORS fields and how many more there were', (_name, filter, status, key) => {
    const { status: sent, body } = run(filter, unknownKeys(20_000));
    expect(sent).toBe(status);
    const text: string = body[key];
    expect(text.split('; ')).toHaveLength(MAX_FIELD_ERRORS + 1);
    expect(text).toContain('property k49 should not exist');
    expect(text).not.toContain('k50 ');
    expect(text.endsWith(`; ${20_000 - MAX_FIELD_ERRORS} more problems not listed`)).toBe(true);
    expect(text.length).toBeLessThan(5_000);
  });

  it('an uncapped list reads as before', () => {
    expect(run(new EnvelopeErrorFilter(), unknownKeys(MAX_FIELD_ERRORS)).body.error.message).toBe('Validation failed');
    expect(run(new PlainErrorFilter(), unknownKeys(2)).body).toEqual({ error: 'property k0 should not exist; property k1 should not exist' });
  });
});

describe('ApiError subclasses of domain code', () => {
  class MediaMissing extends ApiError {
    constructor(readonly graphCode: number) {
      super(404, 'NOT_FOUND', 'no media 42', { suggestion: 'List the posts first.' });
    }
  }

  it('are answered with their status and message in every shape', () => {
    expect(run(new PlainErrorFilter(), new MediaMissing(100))).toMatchObject({ status: 404, body: { error: 'no media 42' } });
    expect(run(new DetailErrorFilter(), new ApiError(409, 'CONFLICT', 'already done'))).toMatchObject({ status: 409, body: { detail: 'already done' } });
    const { status, body } = run(new EnvelopeErrorFilter(), new MediaMissing(100));
    expect(status).toBe(404);
    expect(body.error).toMatchObject({ code: 'NOT_FOUND', message: 'no media 42', statusCode: 404, suggestion: 'List the posts first.' });
  });

  it('keep their own code and field errors in the envelope', () => {
    const errors = [{ field: 'media_id', message: 'unknown', code: 'not_found' }];
    const { body } = run(new EnvelopeErrorFilter(), new ApiError(422, 'ROWS_INVALID', 'Bad rows', { errors }));
    expect(body.error).toMatchObject({ code: 'ROWS_INVALID', statusCode: 422, errors });
  });

  it('with a status that is no error status are unexpected: 500, logged, message hidden', () => {
    const log = { error: jest.fn(), warn: jest.fn() };
    for (const status of [200, 302, 600, 404.5, Number.NaN]) {
      expect(run(new PlainErrorFilter(), new ApiError(status, 'ODD', 'secret detail'), { log })).toMatchObject({ status: 500, body: { error: 'Internal server error' } });
    }
    expect(log.error).toHaveBeenCalledTimes(5);
  });

  it('an ordinary error with a status field stays a 500 (an upstream status is not the answer)', () => {
    const upstream = Object.assign(new Error('Graph API said 404'), { status: 404 });
    expect(run(new PlainErrorFilter(), upstream)).toMatchObject({ status: 500, body: { error: 'Internal server error' } });
  });
});

describe('non-HTTP contexts', () => {
  it('does not try to write an HTTP response', () => {
    const host = { getType: () => 'ws', switchToHttp: jest.fn() } as unknown as ArgumentsHost;
    const spy = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    new PlainErrorFilter().catch(new Error('socket'), host);
    expect(host.switchToHttp).not.toHaveBeenCalled();
    expect(spy).toHaveBeenCalledWith('Unhandled ws error', expect.stringContaining('socket'));
    spy.mockRestore();
  });
});

describe('production answers (filter.production = true)', () => {
  const inProduction = <F extends BaseErrorFilter>(filter: F): F => Object.assign(filter, { production: true });
  const leak = new ApiError(502, 'CARRIER_UNAVAILABLE', 'Carrier did not answer: connect ECONNREFUSED 10.0.0.7:443', {
    suggestion: 'Retry later.',
    errors: [{ field: 'upstream', message: 'socket hang up at 10.0.0.7', code: 'upstream' }],
  });

  it('a 5xx ApiError keeps status, code, suggestion and headers but not its message or field details, in every shape', () => {
    const envelope = run(inProduction(new EnvelopeErrorFilter()), leak);
    expect(envelope.status).toBe(502);
    expect(envelope.body.error).toEqual({
      code: 'CARRIER_UNAVAILABLE',
      message: 'Bad gateway: a service this request needs failed',
      statusCode: 502,
      requestId: 'req-1',
      suggestion: 'Retry later.',
    });
    expect(run(inProduction(new PlainErrorFilter()), leak).body).toEqual({ error: 'Bad gateway: a service this request needs failed' });
    expect(run(inProduction(new DetailErrorFilter()), leak).body).toEqual({ detail: 'Bad gateway: a service this request needs failed' });
    expect(run(inProduction(new PlainErrorFilter()), new BadGatewayException('upstream 10.0.0.7 reset')).body).toEqual({
      error: 'Bad gateway: a service this request needs failed',
    });
  });

  it('keeps messages written for the client: 4xx, and a 5xx ApiError with expose', () => {
    const filter = inProduction(new PlainErrorFilter());
    expect(run(filter, new ApiError(503, 'NOT_CONFIGURED', 'Billing is not configured', { expose: true })).body).toEqual({ error: 'Billing is not configured' });
    expect(run(filter, new ConflictException('Already exists')).body).toEqual({ error: 'Already exists' });
    expect(run(filter, validationError()).status).toBe(400);
  });

  it('outside production the same 5xx message is shown', () => {
    expect(run(new PlainErrorFilter(), leak).body.error).toContain('ECONNREFUSED');
  });
});
