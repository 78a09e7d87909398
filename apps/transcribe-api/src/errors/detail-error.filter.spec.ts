import { ApiError } from '@platform/errors';
import type { ArgumentsHost } from '@nestjs/common';
import { TranscribeDetailErrorFilter } from './detail-error.filter';

function render(exception: unknown): { status: number; body: unknown } {
  const res = { statusCode: 0, headersSent: false, body: '', setHeader: () => undefined, end: (b: string) => (res.body = b) };
  const host = {
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => ({ id: 'r1', headers: {}, method: 'GET', url: '/x' }), getResponse: () => res }),
  } as unknown as ArgumentsHost;
  new TranscribeDetailErrorFilter().catch(exception, host);
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

describe('TranscribeDetailErrorFilter', () => {
  it('answers {detail} with the suggestion after the message', () => {
    expect(render(new ApiError(404, 'JOB_NOT_FOUND', 'Job x not found', { suggestion: 'Use the job_id you were given.' }))).toEqual({
      status: 404,
      body: { detail: 'Job x not found. Use the job_id you were given.' },
    });
    expect(render(new ApiError(400, 'X', 'Bad upload (Too many files)', { suggestion: 'Send one file.' })).body).toEqual({ detail: 'Bad upload (Too many files). Send one file.' });
  });

  it('keeps the bare message without a suggestion, and hides unexpected errors', () => {
    expect(render(new ApiError(422, 'X', 'engine must be one of: a, b')).body).toEqual({ detail: 'engine must be one of: a, b' });
    expect(render(new Error('secret stack'))).toEqual({ status: 500, body: { detail: 'Internal server error' } });
  });
});
