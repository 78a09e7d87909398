import { ApiError } from '@platform/errors';

export const missingAuth = () =>
  new ApiError(401, 'MISSING_AUTH', 'Authentication required', {
    suggestion: 'Send `Authorization: Bearer <key>` with your project key (sk_… for this endpoint), or log in to the dashboard.',
    headers: { 'WWW-Authenticate': 'Bearer' },
  });

export const invalidApiKey = (message = 'Invalid API key') =>
  new ApiError(401, 'INVALID_API_KEY', message, {
    suggestion: 'Use the current keys from the project settings: the public key (pk_…) works only for POST /v1/track, the secret key (sk_…) for every endpoint. Rotated keys stop working at once.',
    headers: { 'WWW-Authenticate': 'Bearer' },
  });

export const notLoggedIn = () =>
  new ApiError(401, 'UNAUTHORIZED', 'You are not logged in or your session has expired', {
    suggestion: 'Log in with POST /auth/login; the session cookie is sent back automatically.',
  });

export const projectDisabled = (reason: string | null) =>
  new ApiError(403, 'PROJECT_DISABLED', `This project is disabled${reason ? ` (${reason})` : ''}`, {
    suggestion: 'Contact support or the project owner to re-enable the project.',
  });

export const projectAccessDenied = () =>
  new ApiError(403, 'PROJECT_ACCESS_DENIED', 'You are not a member of this project', {
    suggestion: 'Pick one of your projects (GET /users/@me/projects) in the X-Project-Id header, or ask an owner to add you.',
  });

export const missingProject = () =>
  new ApiError(400, 'MISSING_PROJECT', 'No project selected', {
    suggestion: 'Send the project id in the X-Project-Id header (dashboard sessions), or authenticate with the project secret key.',
  });

export const roleRequired = (roles: string[]) =>
  new ApiError(403, 'FORBIDDEN', `This action needs the role ${roles.join(' or ')} in the project`, {
    suggestion: 'Ask a project owner or admin to do it, or to change your role.',
  });
