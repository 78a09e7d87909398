import { ApiError } from './api-error';
import { databaseUnavailable, isDatabaseConnectionLoss } from './connection-loss';

/** The shape of TypeORM's QueryFailedError around a driver error. */
const queryFailed = (driverError: Error) => Object.assign(new Error('Query failed'), { name: 'QueryFailedError', driverError });

describe('isDatabaseConnectionLoss', () => {
  it('recognises a lost or refused connection, bare or wrapped by TypeORM', () => {
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    expect(isDatabaseConnectionLoss(terminated)).toBe(true);
    expect(isDatabaseConnectionLoss(queryFailed(terminated))).toBe(true);
    expect(isDatabaseConnectionLoss(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseConnectionLoss(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseConnectionLoss(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseConnectionLoss(Object.assign(new Error('the database system is shutting down'), { code: '57P03' }))).toBe(true);
  });

  it('leaves errors of the statement itself alone', () => {
    const unique = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
    expect(isDatabaseConnectionLoss(queryFailed(unique))).toBe(false);
    expect(isDatabaseConnectionLoss(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }))).toBe(false);
    expect(isDatabaseConnectionLoss(new Error('boom'))).toBe(false);
    expect(isDatabaseConnectionLoss(undefined)).toBe(false);
  });

  it('answers 503 DATABASE_UNAVAILABLE with Retry-After, its message meant for the client', () => {
    const err = databaseUnavailable();
    expect(err).toBeInstanceOf(ApiError);
    expect(err.getStatus()).toBe(503);
    expect(err).toMatchObject({ code: 'DATABASE_UNAVAILABLE', headers: { 'Retry-After': '1' }, exposeMessage: true });
  });
});
