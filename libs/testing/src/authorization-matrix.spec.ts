import { compareRowsToOperations, leakedSecrets, methodOf, operationsOf, rowProblems, secretsToLookFor, undocumentedStatuses } from './authorization-matrix';

describe('authorization matrix (pure parts)', () => {
  it('lists every method of every path of an OpenAPI document, leaving out path-level keys', () => {
    const ops = operationsOf({
      paths: {
        '/api/v1/things/{id}': { get: {}, delete: {}, parameters: [], summary: 'x' },
        '/api/v1/things': { post: {}, get: {} },
      },
    });
    expect(ops).toEqual(['DELETE /api/v1/things/{id}', 'GET /api/v1/things', 'GET /api/v1/things/{id}', 'POST /api/v1/things']);
  });

  it('names the operations without a row and the rows without an operation', () => {
    expect(compareRowsToOperations(['GET /a', 'POST /a'], ['POST /a', 'GET /a'])).toEqual({ withoutRow: [], withoutOperation: [] });
    expect(compareRowsToOperations(['GET /a', 'DELETE /gone'], ['GET /a', 'PUT /a/{id}'])).toEqual({
      withoutRow: ['PUT /a/{id}'],
      withoutOperation: ['DELETE /gone'],
    });
  });

  it('refuses a row that checks no caller or leaves one out without a note', () => {
    expect(rowProblems({ expect: {} })).toEqual(['lists no caller']);
    expect(rowProblems({ expect: { none: 401, wrong: 401 } })).toEqual(['leaves out otherTenant, lesserRole without a note saying why']);
    expect(rowProblems({ expect: { none: 401, wrong: 401 }, note: 'one tenant, one role' })).toEqual([]);
    expect(rowProblems({ expect: { none: 200 }, public: true })).toEqual([]);
  });

  it('finds the secrets an answer shows, except those the request carried itself', () => {
    expect(leakedSecrets('{"email":"owner@x.test","id":"r1"}', ['owner@x.test', 'r1', 'other'], '/things/r1')).toEqual(['owner@x.test']);
    expect(leakedSecrets('nothing here', ['owner@x.test', ''])).toEqual([]);
  });

  it('names the statuses a row expects that its operation does not document', () => {
    const document = {
      paths: {
        '/things/{id}': { get: { responses: { '200': {}, '401': {} } }, delete: { responses: { default: {} } } },
      },
    };
    expect(
      undocumentedStatuses(document, {
        'GET /things/{id}': { expect: { none: 401, otherTenant: 404 }, owner: 200 },
        'DELETE /things/{id}': { expect: { none: 401 } },
        'GET /elsewhere/{path}': { expect: { none: 418 } },
      }),
    ).toEqual(['GET /things/{id} answers 404, which its document does not list (it lists 200, 401)']);
  });

  it("looks for a caller's own secrets even where it may see the owner's data", () => {
    const setup = { secrets: ['owner@x.test'], secretsFor: { lesserRole: ['webhook-secret'] } };
    expect(secretsToLookFor('lesserRole', { seesOwnerData: ['lesserRole'] }, setup)).toEqual(['webhook-secret']);
    expect(secretsToLookFor('lesserRole', {}, setup)).toEqual(['owner@x.test', 'webhook-secret']);
    expect(secretsToLookFor('otherTenant', { seesOwnerData: ['lesserRole'] }, setup)).toEqual(['owner@x.test']);
  });

  it('takes the method from the operation key', () => {
    expect(methodOf('PATCH /a/{id}')).toBe('PATCH');
    expect(() => methodOf('/a')).toThrow(/HTTP method/);
  });
});
