import { cyclesWithoutWait, validateGraph, type GraphFacts, type GraphStep, type GraphTransition, type WorkflowGraph } from './graph';

const T = '00000000-0000-4000-8000-000000000001';
const MAIL = '00000000-0000-4000-8000-000000000002';
const WAIT = '00000000-0000-4000-8000-000000000003';
const COND = '00000000-0000-4000-8000-000000000004';
const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const TEMPLATE = '10000000-0000-4000-8000-000000000001';
const SEGMENT = '20000000-0000-4000-8000-000000000001';

const steps: Record<string, GraphStep> = {
  [T]: { id: T, type: 'TRIGGER', name: 'Start', config: {} },
  [MAIL]: { id: MAIL, type: 'SEND_EMAIL', name: 'Welcome', config: { templateId: TEMPLATE } },
  [WAIT]: { id: WAIT, type: 'DELAY', name: 'Two days', config: { amount: 2, unit: 'days' } },
  [COND]: { id: COND, type: 'CONDITION', name: 'Opened?', config: { field: `email.${MAIL}.opened`, operator: 'equals', value: true } },
  [A]: { id: A, type: 'UPDATE_CONTACT', name: 'Tag', config: { data: { engaged: true } } },
  [B]: { id: B, type: 'EXIT', name: 'Done', config: {} },
};

let n = 0;
const edge = (from: string, to: string, branch: GraphTransition['branch'] = null): GraphTransition => ({ id: `t${++n}`, fromStepId: from, toStepId: to, branch });

const facts = (over: Partial<GraphFacts> = {}): GraphFacts => ({
  segments: new Map([[SEGMENT, { name: 'Pro', tracked: true }]]),
  templates: new Map([[TEMPLATE, { name: 'Welcome', domain: 'send.acme.test', domainVerified: true }]]),
  ...over,
});

/** trigger → mail → delay → condition (yes → tag, no → exit). */
const welcome = (): WorkflowGraph => ({
  triggerType: 'EVENT',
  triggerConfig: { eventName: 'signed_up' },
  steps: [steps[T], steps[MAIL], steps[WAIT], steps[COND], steps[A], steps[B]],
  transitions: [edge(T, MAIL), edge(MAIL, WAIT), edge(WAIT, COND), edge(COND, A, 'yes'), edge(COND, B, 'no')],
});

const codes = (g: WorkflowGraph, f = facts()) => validateGraph(g, f).map((e) => `${e.field}:${e.code}`).sort();

describe('validateGraph', () => {
  it('accepts a welcome series', () => {
    expect(validateGraph(welcome(), facts())).toEqual([]);
  });

  it('names a step that nothing leads to', () => {
    const g = welcome();
    g.transitions = g.transitions.filter((t) => t.toStepId !== A);
    expect(codes(g)).toEqual([`steps[${A}]:unreachable_step`, `steps[${COND}]:missing_branch`].sort());
  });

  it('needs the trigger to lead somewhere and nothing to lead into it', () => {
    expect(codes({ ...welcome(), steps: [steps[T]], transitions: [] })).toEqual([`steps[${T}]:entry_leads_nowhere`]);
    const g = welcome();
    g.transitions.push(edge(A, T));
    expect(codes(g)).toContain(`steps[${T}]:entry_has_incoming`);
  });

  it('needs exactly one TRIGGER', () => {
    expect(codes({ ...welcome(), steps: welcome().steps.filter((s) => s.type !== 'TRIGGER') })).toContain('steps:missing_entry');
    const second = { ...steps[T], id: '00000000-0000-4000-8000-0000000000ff' };
    expect(codes({ ...welcome(), steps: [...welcome().steps, second] })).toContain('steps:multiple_entries');
  });

  it('refuses a loop of instant steps, names a step on it, and accepts a loop through a DELAY', () => {
    const g = welcome();
    g.transitions = [edge(T, MAIL), edge(MAIL, WAIT), edge(WAIT, COND), edge(COND, MAIL, 'yes'), edge(COND, A, 'no'), edge(A, B)];
    // mail → delay → condition → mail: the delay breaks the loop
    expect(codes(g)).toEqual([]);
    const instant = welcome();
    instant.transitions = [edge(T, MAIL), edge(MAIL, COND), edge(COND, A, 'yes'), edge(COND, B, 'no'), edge(A, MAIL)];
    const errors = validateGraph(instant, facts());
    expect(errors.filter((e) => e.code === 'cycle_without_wait')).toHaveLength(1);
    expect(errors.find((e) => e.code === 'cycle_without_wait')!.message).toMatch(/"Welcome".*"Opened\?".*"Tag"|"Opened\?".*"Tag".*"Welcome"|"Tag".*"Welcome".*"Opened\?"/);
  });

  it('CONDITION needs yes and no; branches only where they belong; EXIT leads nowhere', () => {
    const g = welcome();
    g.transitions = g.transitions.filter((t) => t.branch !== 'no');
    expect(codes(g)).toEqual([`steps[${B}]:unreachable_step`, `steps[${COND}]:missing_branch`].sort());
    const h = welcome();
    h.transitions[0] = { ...h.transitions[0], branch: 'yes' };
    expect(codes(h)).toContain(`steps[${T}]:invalid_branch`);
    const x = welcome();
    x.transitions.push(edge(B, A));
    expect(codes(x)).toContain(`steps[${B}]:invalid_branch`);
  });

  it('checks templates: missing, or on a domain that is not verified', () => {
    expect(codes(welcome(), facts({ templates: new Map() }))).toEqual([`steps[${MAIL}].config.templateId:not_found`]);
    const unverified = validateGraph(welcome(), facts({ templates: new Map([[TEMPLATE, { name: 'Welcome', domain: 'send.acme.test', domainVerified: false }]]) }));
    expect(unverified).toEqual([expect.objectContaining({ field: `steps[${MAIL}].config.templateId`, code: 'domain_not_verified', message: expect.stringContaining('send.acme.test') })]);
  });

  it('a mail condition names a SEND_EMAIL step that comes before it', () => {
    const g = welcome();
    g.steps = g.steps.map((s) => (s.id === COND ? { ...s, config: { field: `email.${A}.opened`, operator: 'equals', value: true } } : s));
    expect(codes(g)).toEqual([`steps[${COND}].config.field:unknown_step`]);
    const after = welcome();
    const mail2 = { id: '00000000-0000-4000-8000-0000000000c1', type: 'SEND_EMAIL' as const, name: 'Later', config: { templateId: TEMPLATE } };
    after.steps = [...after.steps.map((s) => (s.id === COND ? { ...s, config: { field: `email.${mail2.id}.clicked`, operator: 'equals', value: true } } : s)), mail2];
    after.transitions.push(edge(A, mail2.id));
    expect(codes(after)).toEqual([`steps[${COND}].config.field:mail_step_not_before`]);
  });

  it('checks the trigger config', () => {
    expect(codes({ ...welcome(), triggerConfig: {} })).toEqual(['triggerConfig.eventName:required']);
    expect(codes({ ...welcome(), triggerType: 'SEGMENT_ENTRY', triggerConfig: {} })).toEqual(['triggerConfig.segmentId:required']);
    expect(codes({ ...welcome(), triggerType: 'SEGMENT_EXIT', triggerConfig: { segmentId: SEGMENT } })).toEqual([]);
    expect(codes({ ...welcome(), triggerType: 'SEGMENT_EXIT', triggerConfig: { segmentId: A } })).toEqual(['triggerConfig.segmentId:not_found']);
    const untracked = facts({ segments: new Map([[SEGMENT, { name: 'Pro', tracked: false }]]) });
    expect(codes({ ...welcome(), triggerType: 'SEGMENT_ENTRY', triggerConfig: { segmentId: SEGMENT } }, untracked)).toEqual(['triggerConfig.segmentId:segment_not_tracked']);
    expect(codes({ ...welcome(), triggerType: 'MANUAL', triggerConfig: {} })).toEqual([]);
  });

  it('re-checks step configs', () => {
    const g = welcome();
    g.steps = g.steps.map((s) => (s.id === WAIT ? { ...s, config: { amount: 366, unit: 'days' } } : s));
    expect(codes(g)).toEqual([`steps[${WAIT}].config.amount:too_big`]);
  });
});

describe('cyclesWithoutWait', () => {
  const s = (id: string, type: GraphStep['type'] = 'WEBHOOK'): GraphStep => ({ id, type, name: id, config: {} });

  it('finds a self loop and separate loops, ignores loops through a wait', () => {
    expect(cyclesWithoutWait([s('a')], [edge('a', 'a')])).toEqual([['a']]);
    const found = cyclesWithoutWait([s('a'), s('b'), s('c'), s('d'), s('w', 'WAIT_FOR_EVENT')], [edge('a', 'b'), edge('b', 'a'), edge('c', 'w'), edge('w', 'd'), edge('d', 'c')]);
    expect(found.map((c) => [...c].sort())).toEqual([['a', 'b']]);
  });

  it('handles a long chain without recursion', () => {
    const ids = Array.from({ length: 20_000 }, (_v, i) => `s${i}`);
    const chain = ids.slice(1).map((id, i) => edge(ids[i], id));
    expect(cyclesWithoutWait(ids.map((id) => s(id)), chain)).toEqual([]);
    expect(cyclesWithoutWait(ids.map((id) => s(id)), [...chain, edge(ids[ids.length - 1], ids[0])])[0]).toHaveLength(20_000);
  });
});
