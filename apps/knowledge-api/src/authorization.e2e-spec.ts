// The authorization matrix of knowledge-api: with KNOWLEDGE_API_KEY set, every operation of its
// OpenAPI document answers 401 without the key or with a wrong one, and shows nothing of the stored
// knowledge, projects or tasks. The service has one key and no tenants or roles (part A), so no row
// has another tenant or a lesser role; the owner (the key) proves each request is right.
import type { AddressInfo } from 'node:net';
import { createTestApp, describeAuthorizationMatrix, fetchDocument, operationsOf, type MatrixRow, type TestApp } from '@platform/testing';
import type { KnowledgeApiConfig } from './config';
import { knowledgeApiService } from './service';

const KEY = 'authz-knowledge-key-0123456789';
const PROJECT_TITLE = 'Owner project 1e7b';
const TASK_TITLE = 'Owner task 9a3c';
const DOC_TITLE = 'Owner doc 5f2d';
const UPLOAD_TEXT = 'owner-only knowledge sentence 4d8e about harbour cranes';

interface Ctx {
  projectId: string;
  doomedProjectId: string;
  taskId: string;
  doomedTaskId: string;
  docId: string;
  doomedDocId: string;
  sourceId: string;
  doomedSourceId: string;
  progressId: string;
}

let t: TestApp<KnowledgeApiConfig>;

async function setup() {
  t = await createTestApp(knowledgeApiService, { KNOWLEDGE_API_KEY: KEY, UPLOAD_WAIT_MS: '10000' });
  try {
    return await prepare();
  } catch (err) {
    await t.close();
    throw err;
  }
}

async function prepare() {
  const server = t.app.getHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const key = { 'X-API-Key': KEY };
  const call = async (method: 'get' | 'post', path: string, body: object | undefined, status: number) => {
    const res = await t.http[method](path).set(key).send(body);
    if (res.status !== status) throw new Error(`setup: ${method.toUpperCase()} ${path} answered ${res.status} ${res.text}`);
    return res.body;
  };
  const project = async (title: string) => {
    const created = await call('post', '/api/projects', { title }, 202);
    for (let i = 0; i < 200; i++) {
      if ((await t.http.get(`/api/projects/${created.project_id}`).set(key)).status === 200) return created.project_id as string;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`setup: project ${title} never appeared`);
  };
  const projectId = await project(PROJECT_TITLE);
  const doomedProjectId = await project('Doomed project');
  const task = await call('post', '/api/tasks', { project_id: projectId, title: TASK_TITLE }, 201);
  const doomedTask = await call('post', '/api/tasks', { project_id: projectId, title: 'Doomed task' }, 201);
  const doc = await call('post', `/api/projects/${projectId}/docs`, { document_type: 'spec', title: DOC_TITLE, content: { text: 'owner doc body' } }, 201);
  const doomedDoc = await call('post', `/api/projects/${projectId}/docs`, { document_type: 'note', title: 'Doomed doc', content: {} }, 201);
  await call('post', `/api/projects/${projectId}/versions`, { field_name: 'docs', content: [{ title: DOC_TITLE }] }, 201);
  const upload = async (name: string, text: string) => {
    const res = await t.http.post('/api/documents/upload').set(key).field('knowledge_type', 'technical').attach('file', Buffer.from(text), name);
    if (res.status !== 200) throw new Error(`setup: upload answered ${res.status} ${res.text}`);
    return res.body;
  };
  const uploaded = await upload('owner-notes.txt', `${UPLOAD_TEXT}\n`);
  await upload('doomed-notes.txt', 'doomed knowledge\n');
  const sources = (await call('get', '/api/rag/sources', undefined, 200)) as { sources: Array<{ source_id: string; title: string }> };
  const list = sources.sources;
  const sourceId = list.find((s) => s.title?.includes('owner-notes'))?.source_id ?? list[0]!.source_id;
  const doomedSourceId = list.find((s) => s.source_id !== sourceId)!.source_id;
  const document = await fetchDocument(baseUrl, '/api/docs-json', key);
  return {
    baseUrl,
    operations: operationsOf(document),
    document,
    callers: { wrong: { 'X-API-Key': 'not-the-knowledge-key-000000', Authorization: 'Bearer not-the-knowledge-key-000000' }, otherTenant: {}, lesserRole: {} },
    owner: key,
    secrets: [PROJECT_TITLE, TASK_TITLE, DOC_TITLE, UPLOAD_TEXT, projectId, task.task.id, sourceId, KEY],
    ctx: {
      projectId,
      doomedProjectId,
      taskId: task.task.id,
      doomedTaskId: doomedTask.task.id,
      docId: doc.document.id,
      doomedDocId: doomedDoc.document.id,
      sourceId,
      doomedSourceId,
      progressId: uploaded.progress_id,
    } satisfies Ctx,
    close: () => t.close(),
  };
}

const NOTE = 'one service key: no tenants, no roles (part A)';
/** 401 without the key or with a wrong one; `owner`: what the key gets (left out where the answer needs an outside system). */
const row = (request: MatrixRow<Ctx>['request'], owner?: number, note?: string): MatrixRow<Ctx> => ({
  request,
  expect: { none: 401, wrong: 401 },
  ...(owner !== undefined ? { owner } : {}),
  note: note ? `${NOTE}; ${note}` : NOTE,
});
const get = (path: (c: Ctx) => string, owner = 200) => row((c) => ({ path: path(c) }), owner);
const send = (path: (c: Ctx) => string, body: (c: Ctx) => unknown, owner?: number, note?: string) => row((c) => ({ path: path(c), body: body(c) }), owner, note);

const rows: Record<string, MatrixRow<Ctx>> = {
  'GET /api/health': get(() => '/api/health'),
  'GET /api/knowledge-items': get(() => '/api/knowledge-items'),
  'PUT /api/knowledge-items/{source_id}': send((c) => `/api/knowledge-items/${c.sourceId}`, () => ({ tags: ['cranes'] }), 200),
  'DELETE /api/knowledge-items/{source_id}': send((c) => `/api/knowledge-items/${c.doomedSourceId}`, () => undefined, 200),
  'GET /api/rag/sources': get(() => '/api/rag/sources'),
  'DELETE /api/sources/{source_id}': send(() => '/api/sources/src-unknown-authz', () => undefined, 404, 'an unknown source: the owner gets 404'),
  'GET /api/progress/{progress_id}': get((c) => `/api/progress/${c.progressId}`),
  'DELETE /api/progress/{progress_id}': send((c) => `/api/progress/${c.progressId}`, () => undefined, undefined, 'cancels a crawl: the owner\'s answer depends on its state'),
  'POST /api/knowledge-items/{source_id}/refresh': send((c) => `/api/knowledge-items/${c.sourceId}/refresh`, () => undefined, 400, 'an upload cannot be recrawled: the owner gets 400'),
  'POST /api/knowledge-items/backfill-embeddings': send(() => '/api/knowledge-items/backfill-embeddings', () => undefined, 400, 'no EMBEDDINGS_URL: the owner gets 400'),
  'POST /api/knowledge-items/crawl': send(() => '/api/knowledge-items/crawl', () => ({ url: 'https://docs.example.com/', knowledge_type: 'technical' }), undefined, 'the owner\'s crawl reaches out: not sent'),
  'POST /api/knowledge-items/stop/{progress_id}': send((c) => `/api/knowledge-items/stop/${c.progressId}`, () => undefined, undefined, 'the owner\'s answer depends on the crawl\'s state'),
  'POST /api/documents/upload': row(() => ({
    path: '/api/documents/upload',
    rawBody: `--authz\r\nContent-Disposition: form-data; name="file"; filename="more.txt"\r\nContent-Type: text/plain\r\n\r\nmore text\r\n--authz--\r\n`,
    headers: { 'content-type': 'multipart/form-data; boundary=authz' },
  }), 200),
  'POST /api/rag/query': send(() => '/api/rag/query', () => ({ query: 'harbour cranes' }), 200),
  'POST /api/rag/code-examples': send(() => '/api/rag/code-examples', () => ({ query: 'harbour cranes' }), 200),
  'GET /api/mcp/status': get(() => '/api/mcp/status'),
  'POST /api/mcp/start': send(() => '/api/mcp/start', () => undefined, undefined, 'starts a container: not sent as the owner'),
  'POST /api/mcp/stop': send(() => '/api/mcp/stop', () => undefined, undefined, 'stops a container: not sent as the owner'),
  'GET /api/mcp/logs': row(() => ({ path: '/api/mcp/logs' }), undefined, 'the owner\'s answer depends on the container engine'),
  'DELETE /api/mcp/logs': send(() => '/api/mcp/logs', () => undefined, 200),
  'GET /api/mcp/config': get(() => '/api/mcp/config'),
  'POST /api/mcp/config': send(() => '/api/mcp/config', () => ({ transport: 'sse' }), 200),
  'GET /api/mcp/tools': row(() => ({ path: '/api/mcp/tools' }), undefined, 'the owner\'s answer depends on the MCP server'),
  'GET /api/mcp/health': get(() => '/api/mcp/health'),
  'GET /api/projects': get(() => '/api/projects'),
  'POST /api/projects': send(() => '/api/projects', () => ({ title: 'Another project' }), 202),
  'GET /api/projects/health': get(() => '/api/projects/health'),
  'GET /api/projects/{project_id}': get((c) => `/api/projects/${c.projectId}`),
  'PUT /api/projects/{project_id}': send((c) => `/api/projects/${c.projectId}`, () => ({ pinned: true }), 200),
  'DELETE /api/projects/{project_id}': send((c) => `/api/projects/${c.doomedProjectId}`, () => undefined, 200),
  'GET /api/projects/{project_id}/features': get((c) => `/api/projects/${c.projectId}/features`),
  'GET /api/projects/{project_id}/tasks': get((c) => `/api/projects/${c.projectId}/tasks`),
  'POST /api/tasks': send(() => '/api/tasks', (c) => ({ project_id: c.projectId, title: 'Another task' }), 201),
  'GET /api/tasks': get(() => '/api/tasks'),
  'GET /api/tasks/{task_id}': get((c) => `/api/tasks/${c.taskId}`),
  'PUT /api/tasks/{task_id}': send((c) => `/api/tasks/${c.taskId}`, () => ({ status: 'doing' }), 200),
  'DELETE /api/tasks/{task_id}': send((c) => `/api/tasks/${c.doomedTaskId}`, () => undefined, 200),
  'GET /api/projects/{project_id}/docs': get((c) => `/api/projects/${c.projectId}/docs`),
  'POST /api/projects/{project_id}/docs': send((c) => `/api/projects/${c.projectId}/docs`, () => ({ document_type: 'note', title: 'Another doc' }), 201),
  'GET /api/projects/{project_id}/docs/{doc_id}': get((c) => `/api/projects/${c.projectId}/docs/${c.docId}`),
  'PUT /api/projects/{project_id}/docs/{doc_id}': send((c) => `/api/projects/${c.projectId}/docs/${c.docId}`, () => ({ tags: ['x'] }), 200),
  'DELETE /api/projects/{project_id}/docs/{doc_id}': send((c) => `/api/projects/${c.projectId}/docs/${c.doomedDocId}`, () => undefined, 200),
  'GET /api/projects/{project_id}/versions': get((c) => `/api/projects/${c.projectId}/versions`),
  'POST /api/projects/{project_id}/versions': send((c) => `/api/projects/${c.projectId}/versions`, () => ({ field_name: 'features', content: [] }), 201),
  'GET /api/projects/{project_id}/versions/{field_name}/{version_number}': get((c) => `/api/projects/${c.projectId}/versions/docs/1`),
  'POST /api/projects/{project_id}/versions/{field_name}/{version_number}/restore': send((c) => `/api/projects/${c.projectId}/versions/docs/1/restore`, () => ({}), 200),
};

describeAuthorizationMatrix('knowledge-api', setup, rows);
