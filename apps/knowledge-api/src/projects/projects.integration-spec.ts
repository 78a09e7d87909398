// Projects, tasks, documents and versions through the REST API, with a fake OpenAI-compatible chat
// server (test/fake-chat.ts) drafting features and tasks, and a Socket.IO client on the root
// namespace following the creation (join_progress) and the project's room (join_project).
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from '@platform/testing';
import { io, type Socket } from 'socket.io-client';
import { startFakeChat, type FakeChat } from '../../test/fake-chat';
import type { KnowledgeApiConfig } from '../config';
import { PROJECT_PHASES } from '../progress/progress-phases';
import { knowledgeApiService } from '../service';

const DRAFT = JSON.stringify({
  prd: { overview: 'A tracker for otters', goals: ['count otters'], scope: ['rivers'] },
  features: [
    { name: 'Sightings', description: 'Record sightings', priority: 'high' },
    { name: 'Maps', description: 'Show them on a map', priority: 'low' },
    { description: 'no name: left out' },
  ],
  tasks: [
    { title: 'Sighting form', description: 'A form to record one', feature: 'Sightings' },
    { title: 'Map view', description: 'Leaflet map', feature: 'Maps' },
    { title: '' },
  ],
});

type Event = { event: string; data: Record<string, unknown> };

async function waitUntil(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('projects and tasks (integration)', () => {
  let t: TestApp<KnowledgeApiConfig>;
  let chat: FakeChat;
  let base: string;
  const sockets: Socket[] = [];
  let sourceId: string;

  beforeAll(async () => {
    chat = await startFakeChat(() => `Here is the plan:\n\`\`\`json\n${DRAFT}\n\`\`\``);
    t = await createTestApp(knowledgeApiService, { LLM_URL: chat.url, LLM_MODEL: 'fake-planner', LLM_API_KEY: 'llm-secret', CRAWL_POLL_MS: '200' });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const up = await t.http.post('/api/documents/upload').attach('file', Buffer.from('# Otters\n\nOtters live by rivers.'), 'otters.md').expect(200);
    sourceId = up.body.document.source_id ?? 'file:otters.md';
  });

  afterAll(async () => {
    sockets.forEach((s) => s.close());
    await t?.close();
    await chat?.close();
  });

  function connect(): Promise<{ socket: Socket; events: Event[] }> {
    const socket = io(base, { transports: ['websocket'], forceNew: true });
    sockets.push(socket);
    const events: Event[] = [];
    socket.onAny((event: string, data: Record<string, unknown>) => events.push({ event, data }));
    return new Promise((resolve, reject) => {
      socket.on('connect_error', reject);
      socket.on('connect', () => resolve({ socket, events }));
    });
  }

  /** Creates a project and follows its creation on the root namespace until it ends. */
  async function createProject(body: Record<string, unknown>): Promise<{ projectId: string; events: Event[]; final: Event }> {
    const res = await t.http.post('/api/projects').send(body).expect(202);
    expect(res.body).toEqual({ progress_id: expect.any(String), status: 'started', message: expect.any(String), project_id: expect.any(String) });
    const { socket, events } = await connect();
    const ack = (await socket.emitWithAck('join_project', { project_id: res.body.project_id })) as { success: boolean };
    expect(ack.success).toBe(true);
    await socket.emitWithAck('join_progress', { progress_id: res.body.progress_id });
    await waitUntil(() => events.some((e) => e.event === 'progress_complete' || e.event === 'progress_error'), 'the end of the creation');
    return { projectId: res.body.project_id, events, final: events.find((e) => e.event === 'progress_complete' || e.event === 'progress_error')! };
  }

  it('creates a project in the background: sources checked and linked, PRD document, features and tasks drafted, progress and result on the root namespace', async () => {
    await t.http.post('/api/projects').send({ title: 'x', technical_sources: ['nope.example-1234'] }).expect(400);
    await t.http.post('/api/projects').send({ description: 'no title' }).expect(400);
    await t.http.post('/api/projects').send({ title: 'x', technical_sources: [{ id: 'wrong shape' }] }).expect(400);

    const { projectId, events, final } = await createProject({
      title: 'Otter tracker',
      description: 'Track otters along rivers',
      github_repo: 'https://github.com/acme/otters',
      technical_sources: [sourceId],
      business_sources: [{ source_id: sourceId, title: 'ignored' }],
      features: [{ name: 'Sightings', description: 'given by the user', status: 'in_progress' }],
      data: { budget: 100 },
    });
    expect(final.event).toBe('progress_complete');
    const updates = events.filter((e) => e.event === 'progress_update');
    const order = PROJECT_PHASES.map((p) => p.status as string);
    let last = -1;
    let pct = -1;
    for (const u of updates) {
      if (u.data.status === 'queued') continue;
      expect(order.indexOf(u.data.status as string)).toBeGreaterThanOrEqual(last);
      expect(u.data.percentage as number).toBeGreaterThanOrEqual(pct);
      expect(typeof u.data.message).toBe('string');
      last = order.indexOf(u.data.status as string);
      pct = u.data.percentage as number;
    }
    expect(updates.map((u) => u.data.status)).toEqual(expect.arrayContaining(['ai_generation', 'saving_to_database']));
    expect(final.data).toMatchObject({ status: 'completed', percentage: 100, result: { project_id: projectId, tasks_created: 2, features_drafted: 2, drafted: true } });
    expect(events.some((e) => e.event === 'project_created' && e.data.project_id === projectId)).toBe(true);

    // the chat server was asked with the model, the key and the description
    const asked = chat.requests[chat.requests.length - 1];
    expect(asked).toMatchObject({ model: 'fake-planner', authorization: 'Bearer llm-secret', response_format: { type: 'json_object' } });
    expect(asked.messages[1].content).toContain('Track otters along rivers');

    const { project } = (await t.http.get(`/api/projects/${projectId}`).expect(200)).body;
    expect(project).toMatchObject({
      id: projectId,
      title: 'Otter tracker',
      color: 'blue',
      icon: 'Briefcase',
      pinned: false,
      github_repo: 'https://github.com/acme/otters',
      data: { budget: 100 },
      prd: { overview: 'A tracker for otters', goals: ['count otters'], scope: ['rivers'] },
      technical_sources: [{ source_id: sourceId, title: expect.any(String) }],
      business_sources: [{ source_id: sourceId, title: expect.any(String) }],
    });
    // the user's feature kept, the drafted one of the same name not added twice
    expect(project.features.map((f: { name: string }) => f.name)).toEqual(['Sightings', 'Maps']);
    expect(project.features[0]).toMatchObject({ id: expect.any(String), description: 'given by the user', status: 'in_progress' });
    expect(project.features[1]).toMatchObject({ priority: 'low', status: 'planned' });
    expect(project.docs).toEqual([expect.objectContaining({ document_type: 'prd', content: project.prd, id: expect.any(String) })]);

    const features = (await t.http.get(`/api/projects/${projectId}/features`).expect(200)).body;
    expect(features).toEqual({ success: true, features: project.features, count: 2 });
    const tasks = (await t.http.get(`/api/projects/${projectId}/tasks`).expect(200)).body;
    expect(tasks.map((x: { title: string; task_order: number; status: string; assignee: string }) => [x.title, x.task_order, x.status, x.assignee])).toEqual([
      ['Sighting form', 0, 'todo', 'User'],
      ['Map view', 1, 'todo', 'User'],
    ]);
    expect((await t.http.get('/api/projects').expect(200)).body.map((p: { id: string }) => p.id)).toContain(projectId);
    // the progress is readable over REST too
    const progressId = events.find((e) => e.data.progressId)!.data.progressId as string;
    expect((await t.http.get(`/api/progress/${progressId}`).expect(200)).body).toMatchObject({ status: 'completed', result: { project_id: projectId } });
  });

  it('creates the project without drafted work when the chat server fails', async () => {
    chat.mode = 'fail';
    const { projectId, final, events } = await createProject({ title: 'No drafts' });
    chat.mode = 'ok';
    expect(final.data).toMatchObject({ status: 'completed', result: { project_id: projectId, tasks_created: 0, drafted: false } });
    expect(events.some((e) => String(e.data.log ?? '').includes('Drafting failed (chat server answered 503'))).toBe(true);
    const { project } = (await t.http.get(`/api/projects/${projectId}`).expect(200)).body;
    expect(project).toMatchObject({ description: '', features: [], prd: {}, data: {}, technical_sources: [], business_sources: [] });
    expect(project.docs).toHaveLength(1);
  });

  it('cancels a creation waiting for a hung chat server: nothing is stored', async () => {
    chat.mode = 'hang';
    const res = await t.http.post('/api/projects').send({ title: 'Never' }).expect(202);
    const { socket, events } = await connect();
    await socket.emitWithAck('join_progress', { progress_id: res.body.progress_id });
    await waitUntil(() => events.some((e) => e.data.status === 'ai_generation'), 'the drafting');
    await t.http.post(`/api/knowledge-items/stop/${res.body.progress_id}`).expect(200);
    await waitUntil(() => events.some((e) => e.event === 'progress_error'), 'the cancel');
    chat.mode = 'ok';
    expect(events.find((e) => e.event === 'progress_error')!.data).toMatchObject({ status: 'cancelled', error: 'Project creation cancelled' });
    await t.http.get(`/api/projects/${res.body.project_id}`).expect(404);
  });

  it('updates, pins and deletes a project with all its tasks', async () => {
    const { projectId } = await createProject({ title: 'Short-lived', pinned: false });
    const updated = (await t.http.put(`/api/projects/${projectId}`).send({ pinned: true, color: 'green', technical_sources: [sourceId] }).expect(200)).body;
    expect(updated).toMatchObject({ id: projectId, pinned: true, color: 'green', icon: 'Briefcase', technical_sources: [{ source_id: sourceId }] });
    expect((await t.http.get('/api/projects').expect(200)).body[0].id).toBe(projectId); // pinned first
    await t.http.put(`/api/projects/${projectId}`).send({ technical_sources: ['missing-source'] }).expect(400);
    await t.http.put(`/api/projects/${projectId}`).send({ unknown_field: 1 }).expect(400);
    await t.http.put(`/api/projects/${projectId}`).send({ title: null }).expect(400);
    expect((await t.http.put(`/api/projects/${projectId}`).send({ github_repo: null }).expect(200)).body.github_repo).toBeNull();

    await t.http.post('/api/tasks').send({ project_id: projectId, title: 'one' }).expect(201);
    const two = (await t.http.post('/api/tasks').send({ project_id: projectId, title: 'two' }).expect(201)).body.task;
    await t.http.delete(`/api/tasks/${two.id}`).expect(200);
    const del = (await t.http.delete(`/api/projects/${projectId}`).expect(200)).body;
    // the two drafted by the fake, the two made here (one archived)
    expect(del).toEqual({ success: true, message: expect.any(String), project_id: projectId, deleted_tasks: 4 });
    await t.http.get(`/api/projects/${projectId}`).expect(404, { error: 'Project not found' });
    await t.http.get(`/api/tasks/${two.id}`).expect(404);
    expect((await t.http.get(`/api/tasks?project_id=${projectId}&include_archived=true`).expect(200)).body.pagination.total).toBe(0);
    await t.http.get('/api/projects/not-a-uuid').expect(400);
  });

  it('answers the projects health', async () => {
    expect((await t.http.get('/api/projects/health').expect(200)).body).toEqual({
      status: 'healthy',
      service: 'projects',
      schema: { projects_table: true, tasks_table: true, valid: true },
    });
  });

  it('runs a task life cycle: positions within a status, moves, subtasks, references, archive and restore, with events to the project room', async () => {
    const { projectId } = await createProject({ title: 'Tasks' });
    const { socket, events } = await connect();
    await socket.emitWithAck('join_project', { project_id: projectId });
    const mk = async (body: Record<string, unknown>) => (await t.http.post('/api/tasks').send({ project_id: projectId, ...body }).expect(201)).body.task;
    const order = async (status = 'todo', extra = '') =>
      ((await t.http.get(`/api/projects/${projectId}/tasks?status=${status}${extra}`).expect(200)).body as Array<{ title: string; task_order: number }>).map((x) => `${x.title}:${x.task_order}`);

    // only the drafted tasks of the fake are in this project's todo column
    const drafted = await order();
    expect(drafted).toEqual(['Sighting form:0', 'Map view:1']);
    const a = await mk({ title: 'A' });
    const b = await mk({ title: 'B', task_order: 0, assignee: 'AI IDE Agent', feature: 'Maps' });
    expect(a).toMatchObject({ status: 'todo', assignee: 'User', task_order: 2, archived: false, parent_task_id: null, sources: [], code_examples: [] });
    expect(b.task_order).toBe(0);
    expect(await order()).toEqual(['B:0', 'Sighting form:1', 'Map view:2', 'A:3']);

    // move within the column, then to another status, at a position and at the end
    await t.http.put(`/api/tasks/${a.id}`).send({ task_order: 1 }).expect(200);
    expect(await order()).toEqual(['B:0', 'A:1', 'Sighting form:2', 'Map view:3']);
    const moved = (await t.http.put(`/api/tasks/${b.id}`).send({ status: 'doing' }).expect(200)).body.task;
    expect(moved).toMatchObject({ status: 'doing', task_order: 0 });
    await t.http.put(`/api/tasks/${a.id}`).send({ status: 'doing', task_order: 0 }).expect(200);
    expect(await order()).toEqual(['Sighting form:0', 'Map view:1']);
    expect(await order('doing')).toEqual(['A:0', 'B:1']);

    // filters
    const byAssignee = (await t.http.get(`/api/tasks?project_id=${projectId}&assignee=AI%20IDE%20Agent`).expect(200)).body;
    expect(byAssignee.tasks.map((x: { title: string }) => x.title)).toEqual(['B']);
    expect((await t.http.get(`/api/projects/${projectId}/tasks?feature=Maps`).expect(200)).body.map((x: { title: string }) => x.title)).toEqual(['Map view', 'B']);
    const paged = (await t.http.get(`/api/tasks?project_id=${projectId}&per_page=3&page=2`).expect(200)).body;
    expect(paged.pagination).toEqual({ total: 4, page: 2, per_page: 3, pages: 2 });
    await t.http.get('/api/tasks?status=blocked').expect(400);
    await t.http.post('/api/tasks').send({ project_id: projectId, title: 'x', status: 'later' }).expect(400);
    await t.http.post('/api/tasks').send({ project_id: '00000000-0000-4000-8000-000000000000', title: 'x' }).expect(404);

    // subtasks, cycles refused, references checked
    const sub = await mk({ title: 'Sub', parent_task_id: a.id, sources: [{ source_id: sourceId, relevance: 'background' }], code_examples: [{ file: 'src/map.ts', purpose: 'the map' }] });
    expect(sub).toMatchObject({ parent_task_id: a.id, sources: [{ source_id: sourceId, title: expect.any(String), relevance: 'background' }], code_examples: [{ file: 'src/map.ts', purpose: 'the map' }] });
    await t.http.put(`/api/tasks/${a.id}`).send({ parent_task_id: sub.id }).expect(400);
    await t.http.put(`/api/tasks/${a.id}`).send({ parent_task_id: a.id }).expect(400);
    await t.http.post('/api/tasks').send({ project_id: projectId, title: 'x', sources: [{ source_id: 'missing' }] }).expect(400);
    await t.http.post('/api/tasks').send({ project_id: projectId, title: 'x', code_examples: [{ code_example_id: 999999 }] }).expect(400);
    expect((await t.http.get(`/api/projects/${projectId}/tasks?parent_task_id=${a.id}`).expect(200)).body.map((x: { id: string }) => x.id)).toEqual([sub.id]);

    // delete archives: the column closes up, listing hides it unless asked, a second delete is 409, restore puts it last
    expect((await t.http.delete(`/api/tasks/${a.id}`).expect(200)).body).toEqual({ success: true, message: expect.any(String), task_id: a.id });
    expect(await order('doing')).toEqual(['B:0']);
    const archived = (await t.http.get(`/api/tasks/${a.id}`).expect(200)).body.task;
    expect(archived).toMatchObject({ archived: true, archived_at: expect.any(String), archived_by: 'api' });
    expect(await order('doing', '&include_archived=true')).toEqual(['B:0', 'A:0']); // archived after the others, with its last position
    await t.http.delete(`/api/tasks/${a.id}`).expect(409);
    await t.http.put(`/api/tasks/${a.id}`).send({ archived: true }).expect(400);
    const restored = (await t.http.put(`/api/tasks/${a.id}`).send({ archived: false }).expect(200)).body.task;
    expect(restored).toMatchObject({ archived: false, archived_at: null, task_order: 1, status: 'doing' });
    await t.http.put(`/api/tasks/${b.id}`).send({ status: 'done' }).expect(200);
    const open = (await t.http.get(`/api/tasks?project_id=${projectId}&include_closed=false`).expect(200)).body;
    expect(open.tasks.map((x: { title: string }) => x.title)).not.toContain('B');

    await waitUntil(() => events.some((e) => e.event === 'task_archived'), 'task events');
    const kinds = events.filter((e) => e.data.project_id === projectId).map((e) => e.event);
    expect(kinds).toEqual(expect.arrayContaining(['task_created', 'task_updated', 'task_archived']));
    expect(events.find((e) => e.event === 'task_archived')!.data).toMatchObject({ project_id: projectId, task: { id: a.id, archived: true } });
  });

  it('keeps versions of documents and fields, and restores them', async () => {
    const { projectId } = await createProject({ title: 'Docs' });
    const docsUrl = `/api/projects/${projectId}/docs`;
    const created = (await t.http.post(docsUrl).send({ document_type: 'spec', title: 'API spec', content: { text: 'v1' }, tags: ['api'] }).expect(201)).body.document;
    expect(created).toMatchObject({ id: expect.any(String), title: 'API spec', document_type: 'spec', content: { text: 'v1' }, tags: ['api'], author: null });
    await t.http.put(`${docsUrl}/${created.id}`).send({ content: { text: 'v2' } }).expect(200);
    await t.http.put(`${docsUrl}/${created.id}`).send({ content: { text: 'v2' } }).expect(200); // unchanged: no version
    await t.http.put(`${docsUrl}/${created.id}`).send({ content: { text: 'v3' }, title: 'API spec 3' }).expect(200);
    const list = (await t.http.get(`${docsUrl}`).expect(200)).body;
    expect(list.total_count).toBe(2); // the PRD and the spec
    expect((await t.http.get(`${docsUrl}/${created.id}`).expect(200)).body.document).toMatchObject({ title: 'API spec 3', content: { text: 'v3' } });

    const versions = (await t.http.get(`/api/projects/${projectId}/versions?document_id=${created.id}`).expect(200)).body;
    expect(versions.versions.map((v: { change_type: string }) => v.change_type)).toEqual(['update', 'update', 'create']);
    const first = versions.versions[2];
    expect(first.content).toBeUndefined();
    const one = (await t.http.get(`/api/projects/${projectId}/versions/docs/${first.version_number}`).expect(200)).body.version;
    expect(one).toMatchObject({ document_id: created.id, content: { title: 'API spec', content: { text: 'v1' } } });

    const restored = (await t.http.post(`/api/projects/${projectId}/versions/docs/${first.version_number}/restore`).send({ restored_by: 'tester' }).expect(200)).body;
    expect(restored).toMatchObject({ success: true, field_name: 'docs', version_number: first.version_number, restored_version: first.version_number + 3 });
    expect((await t.http.get(`${docsUrl}/${created.id}`).expect(200)).body.document).toMatchObject({ title: 'API spec', content: { text: 'v1' } });

    // a deleted document comes back from its versions
    await t.http.delete(`${docsUrl}/${created.id}`).expect(200);
    await t.http.get(`${docsUrl}/${created.id}`).expect(404);
    await t.http.post(`/api/projects/${projectId}/versions/docs/${first.version_number + 1}/restore`).send({}).expect(200);
    expect((await t.http.get(`${docsUrl}/${created.id}`).expect(200)).body.document).toMatchObject({ content: { text: 'v2' } });
    expect((await t.http.get(docsUrl).expect(200)).body.total_count).toBe(2);

    // field versions: the drafted features (version 1), then every change recorded; restore brings a list back
    await t.http.put(`/api/projects/${projectId}`).send({ features: [{ name: 'F1' }] }).expect(200);
    await t.http.put(`/api/projects/${projectId}`).send({ features: [{ name: 'F1' }, { name: 'F2' }] }).expect(200);
    const fv = (await t.http.get(`/api/projects/${projectId}/versions?field_name=features`).expect(200)).body;
    expect(fv.versions.map((v: { version_number: number; change_type: string }) => `${v.version_number}:${v.change_type}`)).toEqual(['3:update', '2:update', '1:create']);
    await t.http.post(`/api/projects/${projectId}/versions/features/2/restore`).send({}).expect(200);
    expect((await t.http.get(`/api/projects/${projectId}/features`).expect(200)).body.features.map((f: { name: string }) => f.name)).toEqual(['F1']);

    // a manual snapshot, validated; missing versions are 404
    const manual = (await t.http.post(`/api/projects/${projectId}/versions`).send({ field_name: 'data', content: { note: 'kept' }, change_summary: 'checkpoint' }).expect(201)).body.version;
    expect(manual).toMatchObject({ field_name: 'data', version_number: 1, change_type: 'manual', content: { note: 'kept' } });
    await t.http.post(`/api/projects/${projectId}/versions`).send({ field_name: 'features', content: { not: 'a list' } }).expect(400);
    await t.http.post(`/api/projects/${projectId}/versions`).send({ field_name: 'bogus', content: {} }).expect(400);
    await t.http.get(`/api/projects/${projectId}/versions/data/99`).expect(404);
    await t.http.post(`/api/projects/${projectId}/versions/prd/0/restore`).send({}).expect(400);
  });
});
