import { ApiError } from '@platform/errors';

/** The strong entity tag of a recipe's draft: its id and revision (every save adds one). */
export const draftEtag = (recipeId: string, revision: number): string => `"${recipeId}.${revision}"`;

/**
 * The draft revision an `If-Match` header names, for a conditional write of the draft (save,
 * publish). Lost updates are what it prevents, so the header is required and must name one
 * version: missing → 428 `PRECONDITION_REQUIRED`; `*` (any version) → 428 `IF_MATCH_WILDCARD_REFUSED`;
 * a weak tag (`W/"…"`, which If-Match's strong comparison never matches) → 412 `WEAK_ETAG_REFUSED`;
 * a tag of another state → 412 `PRECONDITION_FAILED` (with the current ETag in the answer's header).
 */
export function assertIfMatch(header: string | string[] | undefined, current: string): void {
  const value = (Array.isArray(header) ? header.join(',') : header ?? '').trim();
  if (!value) {
    throw new ApiError(428, 'PRECONDITION_REQUIRED', 'This write needs an If-Match header with the draft’s ETag', {
      suggestion: 'GET the draft, then send its ETag header back as If-Match.',
    });
  }
  const tags = value.split(',').map((t) => t.trim()).filter(Boolean);
  if (tags.includes('*')) {
    throw new ApiError(428, 'IF_MATCH_WILDCARD_REFUSED', 'If-Match: * would overwrite any version of the draft; name the version you edited', {
      suggestion: 'Send the ETag of the draft you loaded (GET /api/v1/recipes/{id}/draft).',
    });
  }
  if (tags.some((t) => /^W\//i.test(t))) {
    throw new ApiError(412, 'WEAK_ETAG_REFUSED', 'Weak entity tags never match in If-Match; send the strong ETag of the draft', {
      suggestion: 'Use the ETag header of GET /api/v1/recipes/{id}/draft exactly as sent, without W/.',
    });
  }
  if (!tags.includes(current)) {
    throw new ApiError(412, 'PRECONDITION_FAILED', 'The draft was changed since you loaded it', {
      suggestion: 'Load the draft again (its current ETag is in this answer’s ETag header), merge your changes and save again.',
      headers: { ETag: current },
    });
  }
}
