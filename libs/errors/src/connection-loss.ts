import { ApiError } from './api-error';

/*
 * In an app with a database, a lost connection is answered 503 DATABASE_UNAVAILABLE with Retry-After
 * by the error filter (BaseErrorFilter.databaseLoss), wherever it was thrown: a handler, a guard, a
 * middleware, a raw route. The rule is here, next to the filters, because it only reads an error's
 * code and message.
 */

/**
 * Provided (true) by the database lib's DatabaseModule: the platform then sets the app's filter's
 * `databaseLoss`. Apps without a database keep socket errors as what they are.
 */
export const DATABASE_LOSS_AS_503 = 'platform:database-loss-as-503';

/** PostgreSQL codes of a lost or refused connection: class 08, admin/crash shutdown, cannot connect now, too many connections. */
const LOST_CODES = /^(08...|57P01|57P02|57P03|53300)$/;
/** Node socket errors and pg's own messages when the server or the socket went away. */
const LOST_SOCKET = /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTCONN)$/;
const LOST_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|terminating connection|the database system is (starting up|shutting down)/i;

/** Seconds a client is told to wait before it tries again. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/**
 * True when `err` (a pg error, TypeORM's QueryFailedError around one, or a socket error) says that the
 * connection to PostgreSQL was lost or could not be had, rather than that the statement was wrong.
 */
export function isDatabaseConnectionLoss(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (LOST_CODES.test(code) || LOST_SOCKET.test(code))) return true;
    if (typeof message === 'string' && LOST_MESSAGES.test(message)) return true;
    e = (e as { driverError?: unknown }).driverError ?? (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The answer to a request whose database connection was lost: 503 with `Retry-After`, in the app's error shape. */
export function databaseUnavailable(cause?: unknown): ApiError {
  const err = new ApiError(503, 'DATABASE_UNAVAILABLE', 'The database is unavailable; try again shortly.', {
    headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
    suggestion: 'Retry the request in a moment.',
    expose: true,
  });
  if (cause !== undefined) (err as { cause?: unknown }).cause = cause;
  return err;
}

/** `err` as the answer to a request: `databaseUnavailable(err)` when it is a lost connection (and not an ApiError already), else itself. */
export function asDatabaseUnavailable(err: unknown): unknown {
  return isDatabaseConnectionLoss(err) && !(err instanceof ApiError) ? databaseUnavailable(err) : err;
}
