import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { createHash } from 'node:crypto';
import { IdempotencyRepository } from './idempotency.repository';

export interface IdempotentResult<T> {
  status: number;
  body: T;
  /** True when the answer is the stored one of an earlier request with the same key. */
  replayed: boolean;
}

const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` for POST /v1/track and /v1/send: the first request with a key runs and its
 * answer is stored in the same transaction as its writes; a retry with the same key and the same
 * body gets that answer again (nothing is recorded twice); the same key with another body is a
 * 409 `IDEMPOTENCY_KEY_REUSED`. Keys are per project and endpoint and live 24 hours.
 */
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly transactions: Transactions,
    private readonly keys: IdempotencyRepository,
  ) {}

  async run<T>(
    projectId: string,
    scope: string,
    key: string | undefined,
    request: unknown,
    status: number,
    fn: () => Promise<T>,
  ): Promise<IdempotentResult<T>> {
    if (key === undefined) return { status, body: await this.transactions.transaction(fn), replayed: false };
    if (!KEY.test(key)) {
      throw new ApiError(400, 'INVALID_IDEMPOTENCY_KEY', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters', {
        suggestion: 'Use a UUID per logical operation as the Idempotency-Key.',
      });
    }
    const hash = createHash('sha256').update(JSON.stringify(request ?? null)).digest('hex');
    return this.transactions.transaction(async () => {
      const earlier = await this.keys.claim(projectId, scope, key, hash);
      if (earlier) {
        if (earlier.request_hash !== hash) {
          throw new ApiError(409, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request body', {
            suggestion: 'Use a new Idempotency-Key for a different request; reuse a key only to retry the identical request.',
          });
        }
        return { status: earlier.status_code ?? status, body: earlier.response as T, replayed: true };
      }
      const body = await fn();
      await this.keys.store(projectId, scope, key, status, body);
      return { status, body, replayed: false };
    });
  }
}
