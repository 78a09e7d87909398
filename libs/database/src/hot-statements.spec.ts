import { HOT_AFTER, HotStatements, topLevel } from './hot-statements';

const run = (statements: HotStatements, text: string, times: number) => Array.from({ length: times }, () => statements.nameOf(text));

describe('HotStatements', () => {
  it(`names a read or write from its execution number ${HOT_AFTER} on, by a hash of its text`, () => {
    const statements = new HotStatements();
    const names = run(statements, 'SELECT id FROM s.t WHERE id = $1', HOT_AFTER + 1);
    expect(names.slice(0, HOT_AFTER - 1)).toEqual(Array(HOT_AFTER - 1).fill(null));
    expect(names[HOT_AFTER - 1]).toMatch(/^hot_[0-9a-f]{24}$/);
    expect(names[HOT_AFTER]).toBe(names[HOT_AFTER - 1]);
    // another process (another instance) names the same text alike
    expect(run(new HotStatements(), 'SELECT id FROM s.t WHERE id = $1', HOT_AFTER).pop()).toBe(names[HOT_AFTER]);
    expect(run(statements, 'UPDATE s.t SET n = n + 1 WHERE id = $1', HOT_AFTER).pop()).not.toBe(names[HOT_AFTER]);
  });

  it.each([
    ['WITH v AS (SELECT 1) INSERT INTO s.t SELECT * FROM v', 'a star'],
    ['SELECT * FROM s.t', 'a star'],
    ['SELECT c.*, k.name FROM s.c JOIN s.k ON k.id = c.k', 'a table star'],
    ['INSERT INTO s.t (a) VALUES ($1) RETURNING *', 'RETURNING *'],
    ['BEGIN', 'transaction control'],
    ['SET LOCAL statement_timeout = 5', 'a setting'],
    ['CREATE INDEX i ON s.t (a)', 'DDL'],
    ['DELETE FROM s.a; DELETE FROM s.b;', 'several statements'],
  ])('never names %s (%s)', (text) => {
    expect(run(new HotStatements(), text, HOT_AFTER * 2)).toEqual(Array(HOT_AFTER * 2).fill(null));
  });

  it.each([
    ['SELECT count(*)::int AS n FROM s.t WHERE a = $1', 'count(*)'],
    ['WITH v AS (UPDATE s.t SET n = n + 1 RETURNING *) SELECT (SELECT json_agg(v) FROM v) AS rows', 'stars inside a CTE and a subquery'],
    ["SELECT a FROM s.t WHERE b = '*' AND c = ')*(;x'", 'a star and a semicolon in quotes'],
    ['UPDATE s.t SET n = n + 1 WHERE id = $1;', 'a closing semicolon'],
  ])('names %s (%s: not the result of the statement)', (text) => {
    expect(run(new HotStatements(), text, HOT_AFTER).pop()).toMatch(/^hot_/);
  });

  it('reads the clauses of the statement itself, outside comments, quotes and parentheses', () => {
    expect(topLevel("SELECT x.*, f(a, (b)) FROM (SELECT '(' AS a) x WHERE y IN ($1, $2)")).toBe('SELECT x.*, f  FROM   x WHERE y IN  ');
    expect(topLevel(`-- the mail's (first) click\nSELECT "a;b", '--' /* a * b; */ FROM t`)).toBe(` \nSELECT "", ''   FROM t`);
  });

  it('stops naming a text it was told to refuse', () => {
    const statements = new HotStatements();
    const text = 'SELECT a FROM s.t';
    expect(run(statements, text, HOT_AFTER).pop()).toMatch(/^hot_/);
    statements.refuse(text);
    expect(run(statements, text, HOT_AFTER * 2)).toEqual(Array(HOT_AFTER * 2).fill(null));
  });
});
