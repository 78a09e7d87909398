// POST /{prefix}-tasks over HTTP on a throwaway PostgreSQL database: the API key, classification by the
// rules and by a fake OpenAI-compatible model (validated and replaced by the rules when it fails),
// every task action, status moves, and the 500-task cap.
import { createTestApp, type TestApp } from '@platform/testing';
import { EventBus, LogisticsTaskClassified, type EventEnvelope, type LogisticsTaskClassifiedData } from '@platform/messaging';
import { startFakeLlm, type FakeLlm } from '../../test/fake-llm';
import type { LogisticsHooksConfig } from '../config';
import { logisticsHooksService } from '../service';
import { TaskRefinementWorker } from './task-refinement.worker';

const API_KEY = 'test-logistics-key-0123456789';

const urgentCustoms = {
  from: 'ops@client.example',
  subject: 'URGENT: container held by customs',
  body: 'Customs is holding container CSQU3054383 (B/L MEDUAB123456, booking 987654321). We need the pedimento today.',
  received_at: '2026-11-23T15:00:00Z',
};

describe('tasks webhook (rules)', () => {
  let t: TestApp<LogisticsHooksConfig>;
  const post = (body: unknown) => t.http.post('/ops-tasks').send(body as object);

  beforeAll(async () => {
    t = await createTestApp(logisticsHooksService, { LOGISTICS_API_KEY: API_KEY });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses a missing or wrong api_key with 401 and stores nothing', async () => {
    const missing = await post(urgentCustoms).expect(401);
    expect(missing.body).toMatchObject({ success: false, error: { code: 'INVALID_API_KEY' } });
    await post({ ...urgentCustoms, api_key: `${API_KEY}x` }).expect(401);
    await post({ ...urgentCustoms, api_key: API_KEY.slice(0, -1) }).expect(401);
    await post({ action: 'list', api_key: '' }).expect(401);
    const list = await post({ action: 'list', api_key: API_KEY }).expect(200);
    expect(list.body.total).toBe(0);
  });

  it('classifies an email into a PENDING task with the rules', async () => {
    const res = await post({ ...urgentCustoms, api_key: API_KEY }).expect(201);
    expect(res.body).toMatchObject({
      success: true,
      evicted: 0,
      task: {
        status: 'PENDING',
        priority: 'HIGH',
        category: 'CUSTOMS',
        sentiment: 'URGENT',
        due_suggestion: '2026-11-23',
        shipment_ref: 'CSQU3054383, MEDUAB123456, 987654321',
        references: { containers: ['CSQU3054383'], bills_of_lading: ['MEDUAB123456'], bookings: ['987654321'] },
        classified_by: 'rules',
        from: 'ops@client.example',
        received_at: '2026-11-23T15:00:00.000Z',
        assigned_to: null,
      },
    });
    expect(res.body.task.summary).toContain('URGENT: container held by customs');
    expect(res.body.task.action_required).toContain('customs broker');
  });

  it('refuses an email without its fields with 422 naming them', async () => {
    const res = await post({ api_key: API_KEY, subject: 'x' }).expect(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(res.body.error.errors)).toContain('from');
    expect(JSON.stringify(res.body.error.errors)).toContain('body');
  });

  it('refuses an unknown action with 400', async () => {
    const res = await post({ api_key: API_KEY, action: 'archive' }).expect(400);
    expect(res.body.error.code).toBe('UNKNOWN_ACTION');
    expect(res.body.error.suggestion).toContain('bulk_update');
  });

  describe('actions', () => {
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      const emails = {
        docs: { from: 'a@x.example', subject: 'Missing documents', body: 'The packing list and certificate of origin are missing for MAEU7654320.' },
        payment: { from: 'b@x.example', subject: 'Invoice 4411', body: 'Please confirm the payment of the invoice.' },
        tracking: { from: 'c@x.example', subject: 'ETA', body: 'What is the ETA of the vessel with booking BK778899?' },
        general: { from: 'd@x.example', subject: 'Lunch', body: 'Lunch next week?' },
      };
      for (const [name, email] of Object.entries(emails)) {
        ids[name] = (await post({ ...email, api_key: API_KEY }).expect(201)).body.task.id;
      }
    });

    it('list: newest first, filtered by status, priority, category and search, limited', async () => {
      const all = await post({ action: 'list', api_key: API_KEY }).expect(200);
      expect(all.body).toMatchObject({ success: true, action: 'list', count: 5, total: 5 });
      expect(all.body.tasks.map((x: { id: string }) => x.id).slice(0, 4)).toEqual([ids.general, ids.tracking, ids.payment, ids.docs]);

      const byCategory = await post({ action: 'list', api_key: API_KEY, category: 'PAYMENT' }).expect(200);
      expect(byCategory.body.tasks.map((x: { id: string }) => x.id)).toEqual([ids.payment]);
      const byPriority = await post({ action: 'list', api_key: API_KEY, priority: 'LOW' }).expect(200);
      expect(byPriority.body.tasks.map((x: { id: string }) => x.id)).toEqual([ids.general]);
      const bySearch = await post({ action: 'list', api_key: API_KEY, search: 'bk778899' }).expect(200);
      expect(bySearch.body.tasks.map((x: { id: string }) => x.id)).toEqual([ids.tracking]);
      const literal = await post({ action: 'list', api_key: API_KEY, search: '%' }).expect(200);
      expect(literal.body.total).toBe(0);
      const limited = await post({ action: 'list', api_key: API_KEY, limit: 2 }).expect(200);
      expect(limited.body).toMatchObject({ count: 2, total: 5 });
      const byStatus = await post({ action: 'list', api_key: API_KEY, status: 'DONE' }).expect(200);
      expect(byStatus.body.total).toBe(0);
      await post({ action: 'list', api_key: API_KEY, status: 'CLOSED' }).expect(422);
      await post({ action: 'list', api_key: API_KEY, limit: 501 }).expect(422);
    });

    it('get: one task; unknown 404, malformed 422', async () => {
      const res = await post({ action: 'get', api_key: API_KEY, task_id: ids.docs }).expect(200);
      expect(res.body.task).toMatchObject({ id: ids.docs, category: 'MISSING_DOCS', shipment_ref: 'MAEU7654320' });
      const missing = await post({ action: 'get', api_key: API_KEY, task_id: '00000000-0000-4000-8000-000000000000' }).expect(404);
      expect(missing.body.error.code).toBe('TASK_NOT_FOUND');
      await post({ action: 'get', api_key: API_KEY, task_id: 'nope' }).expect(422);
    });

    it('update: status moves forward, refused moves change nothing', async () => {
      const started = await post({ action: 'update', api_key: API_KEY, task_id: ids.docs, status: 'IN_PROGRESS', assigned_to: 'maria', notes: 'asked the shipper' }).expect(200);
      expect(started.body.task).toMatchObject({ status: 'IN_PROGRESS', assigned_to: 'maria', notes: 'asked the shipper' });

      const back = await post({ action: 'update', api_key: API_KEY, task_id: ids.docs, status: 'PENDING', priority: 'LOW' }).expect(409);
      expect(back.body.error).toMatchObject({ code: 'INVALID_STATUS_TRANSITION' });
      expect(back.body.error.suggestion).toContain('IN_PROGRESS, DONE');
      const unchanged = await post({ action: 'get', api_key: API_KEY, task_id: ids.docs }).expect(200);
      expect(unchanged.body.task).toMatchObject({ status: 'IN_PROGRESS', priority: 'MEDIUM' });

      await post({ action: 'update', api_key: API_KEY, task_id: ids.docs, status: 'ARCHIVED' }).expect(422);
      await post({ action: 'update', api_key: API_KEY, task_id: ids.docs }).expect(400);
      const done = await post({ action: 'update', api_key: API_KEY, task_id: ids.docs, status: 'DONE', assigned_to: null }).expect(200);
      expect(done.body.task).toMatchObject({ status: 'DONE', assigned_to: null });
      await post({ action: 'update', api_key: API_KEY, task_id: ids.docs, status: 'IN_PROGRESS' }).expect(409);
    });

    it('bulk_update: all or nothing', async () => {
      const refused = await post({ action: 'bulk_update', api_key: API_KEY, task_ids: [ids.payment, ids.docs], status: 'IN_PROGRESS' }).expect(409);
      expect(refused.body.error.message).toContain(ids.docs);
      const payment = await post({ action: 'get', api_key: API_KEY, task_id: ids.payment }).expect(200);
      expect(payment.body.task.status).toBe('PENDING');

      const unknown = '00000000-0000-4000-8000-000000000001';
      const missing = await post({ action: 'bulk_update', api_key: API_KEY, task_ids: [ids.payment, unknown], assigned_to: 'joe' }).expect(404);
      expect(missing.body.error.message).toContain(unknown);

      const ok = await post({ action: 'bulk_update', api_key: API_KEY, task_ids: [ids.payment, ids.tracking], status: 'IN_PROGRESS', assigned_to: 'joe' }).expect(200);
      expect(ok.body.updated).toBe(2);
      expect(ok.body.tasks.map((x: { id: string; status: string; assigned_to: string }) => [x.id, x.status, x.assigned_to])).toEqual([
        [ids.payment, 'IN_PROGRESS', 'joe'],
        [ids.tracking, 'IN_PROGRESS', 'joe'],
      ]);
      await post({ action: 'bulk_update', api_key: API_KEY, task_ids: [], status: 'DONE' }).expect(422);
      await post({ action: 'bulk_update', api_key: API_KEY, task_ids: [ids.payment, ids.payment], status: 'DONE' }).expect(422);
    });

    it('stats: counts by status, priority and category, every value present', async () => {
      const res = await post({ action: 'stats', api_key: API_KEY }).expect(200);
      expect(res.body).toMatchObject({
        success: true,
        total: 5,
        by_status: { PENDING: 2, IN_PROGRESS: 2, DONE: 1 },
        by_priority: { HIGH: 1, MEDIUM: 3, LOW: 1 },
        by_category: { CUSTOMS: 1, MISSING_DOCS: 1, PAYMENT: 1, TRACKING: 1, GENERAL: 1 },
      });
    });

    it('delete: removes the task; again 404', async () => {
      await post({ action: 'delete', api_key: API_KEY, task_id: ids.general }).expect(200, { success: true, action: 'delete', deleted: ids.general });
      await post({ action: 'get', api_key: API_KEY, task_id: ids.general }).expect(404);
      await post({ action: 'delete', api_key: API_KEY, task_id: ids.general }).expect(404);
    });

    it('recap and get_recap: an extractive briefing without a model', async () => {
      const none = await post({ action: 'get_recap', api_key: API_KEY }).expect(200);
      expect(none.body.recap).toBeNull();
      const res = await post({
        action: 'recap',
        api_key: API_KEY,
        emails: [
          { from: 'a@x.example', subject: 'Lunch', body: 'Lunch next week?' },
          { from: 'b@x.example', subject: 'URGENT customs hold', body: 'Container CSQU3054383 is held.' },
        ],
      }).expect(200);
      expect(res.body.recap).toMatchObject({ email_count: 2, generated_by: 'extractive' });
      expect(res.body.recap.briefing.split('\n')[1]).toContain('[HIGH] CUSTOMS');
      const latest = await post({ action: 'get_recap', api_key: API_KEY }).expect(200);
      expect(latest.body.recap).toEqual(res.body.recap);
      await post({ action: 'recap', api_key: API_KEY, emails: [] }).expect(422);
      await post({ action: 'recap', api_key: API_KEY, emails: [{ from: 'x' }] }).expect(422);
    });
  });

  it('keeps at most 500 tasks: the 501st evicts the oldest', async () => {
    const email = (i: number) => ({ api_key: API_KEY, from: `s${i}@x.example`, subject: `Shipment ${i}`, body: 'tracking update please' });
    const before = (await post({ action: 'stats', api_key: API_KEY }).expect(200)).body.total as number;
    const oldest = (await post({ action: 'list', api_key: API_KEY, limit: 500 }).expect(200)).body.tasks.at(-1).id as string;
    // fill up to 500 with concurrent inserts (the advisory lock orders them)
    const toFill = 500 - before;
    for (let i = 0; i < toFill; i += 25) {
      await Promise.all(Array.from({ length: Math.min(25, toFill - i) }, (_, j) => post(email(i + j)).expect(201)));
    }
    expect((await post({ action: 'stats', api_key: API_KEY }).expect(200)).body.total).toBe(500);
    await post({ action: 'get', api_key: API_KEY, task_id: oldest }).expect(200);

    const res = await post(email(501)).expect(201);
    expect(res.body.evicted).toBe(1);
    expect((await post({ action: 'stats', api_key: API_KEY }).expect(200)).body.total).toBe(500);
    await post({ action: 'get', api_key: API_KEY, task_id: oldest }).expect(404);
    const newest = await post({ action: 'list', api_key: API_KEY, limit: 1 }).expect(200);
    expect(newest.body.tasks[0].id).toBe(res.body.task.id);
  });
});

describe('tasks webhook (model at LLM_URL)', () => {
  let t: TestApp<LogisticsHooksConfig>;
  let llm: FakeLlm;
  const post = (body: unknown) => t.http.post('/hub-tasks').send(body as object);

  beforeAll(async () => {
    llm = await startFakeLlm();
    t = await createTestApp(logisticsHooksService, {
      LOGISTICS_API_KEY: API_KEY,
      LOGISTICS_PREFIX: 'hub',
      LLM_URL: llm.url,
      LLM_MODEL: 'test-model',
      LLM_TIMEOUT_MS: '500',
      TASK_REFINE_POLL_MS: '600000',
    });
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
  });

  it('serves the path of LOGISTICS_PREFIX only', async () => {
    await t.http.post('/ops-tasks').send({ action: 'stats', api_key: API_KEY }).expect(404);
    await post({ action: 'stats', api_key: API_KEY }).expect(200);
  });

  const refined = async (id: string) => {
    await t.app.get(TaskRefinementWorker).drain();
    return (await post({ action: 'get', api_key: API_KEY, task_id: id }).expect(200)).body.task;
  };

  it('answers with the rules at once and takes the model\'s classification in the background, emitting logistics.task_classified', async () => {
    const events: EventEnvelope<LogisticsTaskClassifiedData>[] = [];
    await t.app.get(EventBus).subscribe('test.task-classified', [LogisticsTaskClassified], async (e) => void events.push(e as EventEnvelope<LogisticsTaskClassifiedData>));
    llm.answer = () =>
      JSON.stringify({ priority: 'LOW', category: 'PAYMENT', sentiment: 'NEUTRAL', summary: 'Customer asks about payment', action_required: 'Call accounting', due_suggestion: '2026-11-30' });
    const res = await post({ ...urgentCustoms, api_key: API_KEY, message_id: '<m1@client.example>' }).expect(201);
    expect(res.body.task).toMatchObject({ priority: 'HIGH', category: 'CUSTOMS', classified_by: 'rules', refinement: 'pending', message_id: '<m1@client.example>' });
    const task = await refined(res.body.task.id);
    expect(task).toMatchObject({
      priority: 'LOW',
      category: 'PAYMENT',
      sentiment: 'NEUTRAL',
      summary: 'Customer asks about payment',
      action_required: 'Call accounting',
      due_suggestion: '2026-11-30',
      shipment_ref: 'CSQU3054383, MEDUAB123456, 987654321',
      classified_by: 'model',
      refinement: 'done',
    });
    const request = llm.requests.at(-1)!;
    expect(request.model).toBe('test-model');
    expect(request.response_format).toEqual({ type: 'json_object' });
    expect(request.messages[1].content).toContain('CSQU3054383');
    for (let i = 0; i < 50 && !events.some((e) => e.data.taskId === task.id); i++) await new Promise((r) => setTimeout(r, 100));
    expect(events.find((e) => e.data.taskId === task.id)?.data).toEqual({
      taskId: task.id, priority: 'LOW', category: 'PAYMENT', sentiment: 'NEUTRAL', classifiedBy: 'model', previous: { priority: 'HIGH', category: 'CUSTOMS', sentiment: 'URGENT' },
    });
  });

  it('a retried webhook (same Message-ID) returns the task already made; nothing is stored or refined again', async () => {
    llm.answer = () => JSON.stringify({ priority: 'LOW' });
    const before = (await post({ action: 'stats', api_key: API_KEY }).expect(200)).body.total;
    const calls = llm.requests.length;
    const email = { ...urgentCustoms, api_key: API_KEY, message_id: 'retry-1@client.example' };
    const [a, b] = await Promise.all([post(email), post({ ...email, message_id: '<retry-1@client.example>' })]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(a.body.task.id).toBe(b.body.task.id);
    expect([a.body.deduplicated, b.body.deduplicated].sort()).toEqual([false, true]);
    await t.app.get(TaskRefinementWorker).drain();
    expect(llm.requests.length).toBe(calls + 1);
    expect((await post({ action: 'stats', api_key: API_KEY }).expect(200)).body.total).toBe(before + 1);
    // without a Message-ID the content identifies the email
    const plain = { api_key: API_KEY, from: 'x@client.example', subject: 'same', body: 'same body', received_at: '2026-11-23T10:00:00Z' };
    const first = await post(plain).expect(201);
    const again = await post({ ...plain, from: 'X@Client.example' }).expect(200);
    expect(again.body).toMatchObject({ deduplicated: true, task: { id: first.body.task.id } });
    await post({ ...plain, received_at: '2026-11-23T11:00:00Z' }).expect(201);
  });

  it('validates the model answer with the rules field by field', async () => {
    llm.answer = () => '```json\n{"priority": "SUPER", "category": "customs", "sentiment": "angry"}\n```';
    const res = await post({ ...urgentCustoms, api_key: API_KEY, message_id: 'invalid-values@client.example' }).expect(201);
    expect(await refined(res.body.task.id)).toMatchObject({ priority: 'HIGH', category: 'CUSTOMS', sentiment: 'URGENT', classified_by: 'model', refinement: 'done' });
  });

  it.each([
    ['an HTTP error', { status: 500 }],
    ['text that is not JSON', 'I think this is about customs'],
    ['no answer in time', { hang: true as const }],
  ])('keeps the rules\' answer and retries later on %s', async (_name, answer) => {
    llm.answer = () => answer;
    const res = await post({ ...urgentCustoms, api_key: API_KEY, message_id: `failure-${_name}@client.example` }).expect(201);
    expect(await refined(res.body.task.id)).toMatchObject({ priority: 'HIGH', category: 'CUSTOMS', sentiment: 'URGENT', classified_by: 'rules', refinement: 'pending' });
  });

  it('recap: a briefing generated by the model, extractive when it fails', async () => {
    llm.answer = () => 'Morning briefing: one customs hold on CSQU3054383.';
    const emails = [{ from: 'b@x.example', subject: 'customs hold', body: 'Container CSQU3054383 is held.' }];
    const generated = await post({ action: 'recap', api_key: API_KEY, emails }).expect(200);
    expect(generated.body.recap).toMatchObject({ briefing: 'Morning briefing: one customs hold on CSQU3054383.', generated_by: 'model' });
    expect(llm.requests.at(-1)!.messages[1].content).toContain('Container CSQU3054383 is held.');

    llm.answer = () => ({ status: 503 });
    const fallback = await post({ action: 'recap', api_key: API_KEY, emails }).expect(200);
    expect(fallback.body.recap.generated_by).toBe('extractive');
    const latest = await post({ action: 'get_recap', api_key: API_KEY }).expect(200);
    expect(latest.body.recap.id).toBe(fallback.body.recap.id);
  });
});
