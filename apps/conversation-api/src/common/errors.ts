import { ApiError } from '@platform/errors';

export const notFound = (what: string, code = `${what.toUpperCase().replace(/\s+/g, '_')}_NOT_FOUND`) =>
  new ApiError(404, code, `${what[0].toUpperCase()}${what.slice(1)} not found`, {
    suggestion: `Check the ${what} id; it must belong to your account.`,
  });

export const conflict = (code: string, message: string, suggestion?: string) => new ApiError(409, code, message, { suggestion });

export const badRequest = (code: string, message: string, suggestion?: string) => new ApiError(400, code, message, { suggestion });
