import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z, type ZodRawShape } from 'zod';
import type { KnowledgeApiClient } from '../knowledge/knowledge-api.client';
import { codeExample, document, feature, json, pagination, project, searchResult, source, sourceRef, task, TASK_STATUSES, version, VERSION_FIELDS } from './schemas';

/** What a tool call knows of the server and of the session it arrived on (session_info). */
export interface ToolSession {
  sessionId?: string;
  transport: 'streamable-http' | 'sse';
  mode: 'stateful' | 'stateless';
  startedAt: Date;
}

export interface ServerFacts {
  startedAt: Date;
  activeSessions(): number;
}

export interface ToolContext {
  api: KnowledgeApiClient;
  session: ToolSession;
  server: ServerFacts;
}

/** Bad arguments for the chosen action (a tool error, not a protocol error). */
export class ToolInputError extends Error {}

export type ToolModule = 'rag' | 'projects' | 'server';

export interface ToolDefinition {
  name: string;
  title: string;
  /** Which part of the server the tool belongs to (`module` of knowledge-api's GET /api/mcp/tools). */
  module: ToolModule;
  description: string;
  input: ZodRawShape;
  output: ZodRawShape;
  annotations: ToolAnnotations;
  run(args: Record<string, any>, ctx: ToolContext): Promise<Record<string, unknown>>;
}

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** manage_*: create, update and delete (or restore over) stored records. */
const WRITES: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

const id = z.string().min(1).max(200);
const matchCount = z.number().int().min(1).max(50).optional().describe('results wanted, default 5, at most 50');

function need<T>(args: Record<string, any>, key: string, action: string): T {
  const value = args[key];
  if (value === undefined || value === null || value === '') throw new ToolInputError(`${key} is required for action "${action}"`);
  return value as T;
}

/** The fields of `args` among `keys` that are set (the REST body of a create or update). */
function pick(args: Record<string, any>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => args[k] !== undefined).map((k) => [k, args[k]]));
}

const seg = (value: string) => encodeURIComponent(value);

const PROJECT_FIELDS = ['title', 'description', 'github_repo', 'color', 'icon', 'prd', 'features', 'docs', 'data', 'technical_sources', 'business_sources', 'pinned'];
const TASK_FIELDS = ['project_id', 'title', 'description', 'status', 'assignee', 'task_order', 'feature', 'parent_task_id', 'sources', 'code_examples'];
const DOC_FIELDS = ['document_type', 'title', 'content', 'tags', 'author'];

/**
 * The tools, named as Archon's MCP server names them. Each calls knowledge-api's REST and returns its
 * answer as structured content (and the same JSON as text, for clients that read only text).
 */
export const TOOLS: ToolDefinition[] = [
  {
    name: 'perform_rag_query',
    title: 'Search the knowledge base',
    module: 'rag',
    description: 'Searches the crawled pages and uploaded documents (full-text, or hybrid with vectors where an embeddings server is configured). Results carry content, url, similarity_score and the source_id; filter by one source with `source` (see get_available_sources).',
    input: {
      query: z.string().min(1).max(2000).describe('what to search for, in words'),
      source: id.optional().describe('only this source_id'),
      match_count: matchCount,
    },
    output: {
      success: z.boolean(),
      query: z.string(),
      results: z.array(searchResult),
      total_results: z.number(),
      processing_time: z.number().describe('seconds'),
      search_mode: z.string().optional(),
      reranked: z.boolean().optional(),
      note: z.string().optional(),
    },
    annotations: READ_ONLY,
    run: (a, { api }) => api.post('/api/rag/query', pick(a, ['query', 'source', 'match_count'])),
  },
  {
    name: 'search_code_examples',
    title: 'Search code examples',
    module: 'rag',
    description: 'Searches the code examples (fenced code blocks of at least 250 characters) found in the knowledge base, optionally of one source or one language (e.g. python).',
    input: {
      query: z.string().min(1).max(2000).describe('what the code should do'),
      source: id.optional().describe('only this source_id'),
      language: z.string().min(1).max(50).optional().describe('only code in this language, as its fence names it'),
      match_count: matchCount,
    },
    output: {
      success: z.boolean(),
      query: z.string(),
      results: z.array(codeExample),
      total_results: z.number(),
      processing_time: z.number(),
      search_mode: z.string().optional(),
      reranked: z.boolean().optional(),
      note: z.string().optional(),
    },
    annotations: READ_ONLY,
    run: (a, { api }) => api.post('/api/rag/code-examples', pick(a, ['query', 'source', 'language', 'match_count'])),
  },
  {
    name: 'get_available_sources',
    title: 'List the sources',
    module: 'rag',
    description: 'Lists the sources of the knowledge base (crawled sites and uploaded documents) with their source_id, for the `source` filter of the search tools.',
    input: {},
    output: { success: z.boolean(), sources: z.array(source), total_count: z.number() },
    annotations: READ_ONLY,
    run: (_a, { api }) => api.get('/api/rag/sources'),
  },
  {
    name: 'manage_project',
    title: 'Manage projects',
    module: 'projects',
    description:
      'Projects: action "list"; "get" (project_id); "create" (title, optional fields: finishes in the background, answers progress_id); "update" (project_id and the fields to change); "delete" (project_id: the project and all its tasks).',
    input: {
      action: z.enum(['create', 'list', 'get', 'update', 'delete']),
      project_id: id.optional(),
      title: z.string().min(1).max(500).optional(),
      description: z.string().max(100_000).optional(),
      github_repo: z.string().max(500).optional(),
      color: z.string().max(50).optional(),
      icon: z.string().max(100).optional(),
      pinned: z.boolean().optional(),
      prd: json.optional(),
      features: z.array(feature).optional(),
      data: json.optional(),
      technical_sources: z.array(sourceRef).optional(),
      business_sources: z.array(sourceRef).optional(),
    },
    output: {
      success: z.boolean(),
      message: z.string().optional(),
      project: project.optional(),
      projects: z.array(project).optional(),
      count: z.number().optional(),
      progress_id: z.string().optional(),
      status: z.string().optional(),
      project_id: z.string().optional(),
      deleted_tasks: z.number().optional(),
    },
    annotations: WRITES,
    run: async (a, { api }) => {
      switch (a.action as string) {
        case 'list': {
          const projects = await api.get<unknown[]>('/api/projects');
          return { success: true, projects, count: projects.length };
        }
        case 'get':
          return api.get(`/api/projects/${seg(need(a, 'project_id', 'get'))}`);
        case 'create': {
          need(a, 'title', 'create');
          const started = await api.post<Record<string, unknown>>('/api/projects', pick(a, PROJECT_FIELDS));
          return { success: true, ...started };
        }
        case 'update': {
          const updated = await api.put<Record<string, unknown>>(`/api/projects/${seg(need(a, 'project_id', 'update'))}`, pick(a, PROJECT_FIELDS));
          return { success: true, project: updated };
        }
        default:
          return api.delete(`/api/projects/${seg(need(a, 'project_id', 'delete'))}`);
      }
    },
  },
  {
    name: 'manage_task',
    title: 'Manage tasks',
    module: 'projects',
    description:
      'Tasks of projects: "list" (filters project_id, status, assignee, feature, include_archived, include_closed, page, per_page); "get" (task_id); "create" (project_id, title, optional fields; task_order places it within its status); "update" (task_id and the fields to change); "delete" (task_id: archives it).',
    input: {
      action: z.enum(['create', 'list', 'get', 'update', 'delete']),
      task_id: id.optional(),
      project_id: id.optional(),
      title: z.string().min(1).max(500).optional(),
      description: z.string().max(100_000).optional(),
      status: z.enum(TASK_STATUSES).optional(),
      assignee: z.string().min(1).max(200).optional().describe('default "User"'),
      task_order: z.number().int().min(0).optional(),
      feature: z.string().max(200).optional(),
      parent_task_id: id.optional(),
      sources: z.array(z.looseObject({ source_id: z.string() })).optional(),
      code_examples: z.array(json).optional(),
      include_archived: z.boolean().optional(),
      include_closed: z.boolean().optional(),
      page: z.number().int().min(1).optional(),
      per_page: z.number().int().min(1).max(100).optional(),
    },
    output: {
      success: z.boolean(),
      message: z.string().optional(),
      task: task.optional(),
      tasks: z.array(task).optional(),
      pagination: pagination.optional(),
      task_id: z.string().optional(),
    },
    annotations: WRITES,
    run: async (a, { api }) => {
      switch (a.action as string) {
        case 'list':
          return api.get('/api/tasks', pick(a, ['project_id', 'status', 'assignee', 'feature', 'include_archived', 'include_closed', 'page', 'per_page']) as Record<string, string>);
        case 'get':
          return api.get(`/api/tasks/${seg(need(a, 'task_id', 'get'))}`);
        case 'create':
          need(a, 'project_id', 'create');
          need(a, 'title', 'create');
          return api.post('/api/tasks', pick(a, TASK_FIELDS));
        case 'update': {
          const { project_id: _p, ...fields } = pick(a, TASK_FIELDS);
          return api.put(`/api/tasks/${seg(need(a, 'task_id', 'update'))}`, fields);
        }
        default:
          return api.delete(`/api/tasks/${seg(need(a, 'task_id', 'delete'))}`);
      }
    },
  },
  {
    name: 'manage_document',
    title: 'Manage project documents',
    module: 'projects',
    description:
      'Documents of a project (its docs: PRDs, specs, notes): "list", "get" (doc_id), "add" (document_type, title, optional content object, tags, author), "update" (doc_id and the fields to change), "delete" (doc_id). Every change records a version (manage_versions).',
    input: {
      action: z.enum(['add', 'list', 'get', 'update', 'delete']),
      project_id: id,
      doc_id: id.optional(),
      document_type: z.string().min(1).max(100).optional(),
      title: z.string().min(1).max(500).optional(),
      content: json.optional(),
      tags: z.array(z.string().max(100)).optional(),
      author: z.string().max(200).optional(),
    },
    output: {
      success: z.boolean(),
      message: z.string().optional(),
      project_id: z.string().optional(),
      document: document.optional(),
      documents: z.array(document).optional(),
      total_count: z.number().optional(),
    },
    annotations: WRITES,
    run: async (a, { api }) => {
      const docs = `/api/projects/${seg(a.project_id as string)}/docs`;
      switch (a.action as string) {
        case 'list':
          return api.get(docs);
        case 'get':
          return api.get(`${docs}/${seg(need(a, 'doc_id', 'get'))}`);
        case 'add':
          need(a, 'document_type', 'add');
          need(a, 'title', 'add');
          return api.post(docs, pick(a, DOC_FIELDS));
        case 'update':
          return api.put(`${docs}/${seg(need(a, 'doc_id', 'update'))}`, pick(a, DOC_FIELDS));
        default:
          return api.delete(`${docs}/${seg(need(a, 'doc_id', 'delete'))}`);
      }
    },
  },
  {
    name: 'manage_versions',
    title: 'Manage versions',
    module: 'projects',
    description:
      'Versions of a project\'s fields (docs, features, data, prd): "list" (optional field_name, document_id), "get" (field_name, version_number: with its content), "create" (field_name, content: a snapshot), "restore" (field_name, version_number: the field, or the one document, goes back to that version).',
    input: {
      action: z.enum(['create', 'list', 'get', 'restore']),
      project_id: id,
      field_name: z.enum(VERSION_FIELDS).optional(),
      version_number: z.number().int().min(1).optional(),
      content: z.unknown().optional(),
      change_summary: z.string().max(2000).optional(),
      document_id: id.optional(),
      created_by: z.string().max(200).optional(),
      restored_by: z.string().max(200).optional(),
    },
    output: {
      success: z.boolean(),
      message: z.string().optional(),
      project_id: z.string().optional(),
      field_name: z.string().nullable().optional(),
      version: version.optional(),
      versions: z.array(version).optional(),
      total_count: z.number().optional(),
      version_number: z.number().optional(),
      restored_version: z.number().optional(),
      project: project.optional(),
    },
    annotations: WRITES,
    run: async (a, { api }) => {
      const base = `/api/projects/${seg(a.project_id as string)}/versions`;
      switch (a.action as string) {
        case 'list':
          return api.get(base, pick(a, ['field_name', 'document_id']) as Record<string, string>);
        case 'get':
          return api.get(`${base}/${seg(need(a, 'field_name', 'get'))}/${need<number>(a, 'version_number', 'get')}`);
        case 'create':
          need(a, 'field_name', 'create');
          if (a.content === undefined) throw new ToolInputError('content is required for action "create"');
          return api.post(base, pick(a, ['field_name', 'content', 'change_summary', 'document_id', 'created_by']));
        default:
          return api.post(`${base}/${seg(need(a, 'field_name', 'restore'))}/${need<number>(a, 'version_number', 'restore')}/restore`, pick(a, ['restored_by']));
      }
    },
  },
  {
    name: 'get_project_features',
    title: 'Get a project\'s features',
    module: 'projects',
    description: 'The features of one project: id, name, description, priority and status.',
    input: { project_id: id },
    output: { success: z.boolean(), features: z.array(feature), count: z.number().optional() },
    annotations: READ_ONLY,
    run: (a, { api }) => api.get(`/api/projects/${seg(a.project_id as string)}/features`),
  },
  {
    name: 'health_check',
    title: 'Health of the server',
    module: 'server',
    description: 'Whether this server and knowledge-api behind it answer: knowledge-api\'s health detail (database, embeddings, vector store, reranking) and this server\'s uptime.',
    input: {},
    output: {
      success: z.boolean(),
      status: z.string().describe('healthy, or degraded when knowledge-api is not ready or does not answer'),
      knowledge_api: z.looseObject({ url: z.string(), status: z.string() }),
      uptime_seconds: z.number(),
      timestamp: z.string(),
    },
    annotations: READ_ONLY,
    run: async (_a, { api, server }) => {
      let knowledgeApi: Record<string, unknown>;
      try {
        const detail = await api.get<Record<string, unknown>>('/api/health');
        knowledgeApi = { url: api.baseUrl, ...detail, status: String(detail.status ?? 'unknown') };
      } catch (err) {
        knowledgeApi = { url: api.baseUrl, status: 'unreachable', error: (err as Error).message };
      }
      const healthy = knowledgeApi.status === 'ok';
      return {
        success: healthy,
        status: healthy ? 'healthy' : 'degraded',
        knowledge_api: knowledgeApi,
        uptime_seconds: Math.round((Date.now() - server.startedAt.getTime()) / 1000),
        timestamp: new Date().toISOString(),
      };
    },
  },
  {
    name: 'session_info',
    title: 'This session',
    module: 'server',
    description: 'The MCP session this call arrived on (id, transport, since when) and the server\'s open sessions and uptime.',
    input: {},
    output: {
      success: z.boolean(),
      session_id: z.string().nullable(),
      transport: z.string(),
      session_mode: z.string(),
      session_started_at: z.string(),
      server_started_at: z.string(),
      uptime_seconds: z.number(),
      active_sessions: z.number(),
    },
    annotations: READ_ONLY,
    run: async (_a, { session, server }) => ({
      success: true,
      session_id: session.sessionId ?? null,
      transport: session.transport,
      session_mode: session.mode,
      session_started_at: session.startedAt.toISOString(),
      server_started_at: server.startedAt.toISOString(),
      uptime_seconds: Math.round((Date.now() - server.startedAt.getTime()) / 1000),
      active_sessions: server.activeSessions(),
    }),
  },
];
