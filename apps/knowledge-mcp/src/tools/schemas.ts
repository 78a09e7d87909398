import { z } from 'zod';

// Shapes of knowledge-api's answers as the tools pass them on (output schemas). Objects are loose:
// knowledge-api may add fields, which the tools pass through unchanged.

const json = z.record(z.string(), z.unknown());

export const itemMetadata = z.looseObject({ source_id: z.string(), char_count: z.number().optional(), word_count: z.number().optional(), headers: z.array(z.unknown()).optional() });

export const searchResult = z.looseObject({
  id: z.number(),
  title: z.string(),
  content: z.string(),
  url: z.string(),
  similarity_score: z.number().describe('in [0, 1], higher is better'),
  metadata: itemMetadata,
});

export const codeExample = z.looseObject({
  id: z.number(),
  source_id: z.string(),
  url: z.string(),
  language: z.string(),
  content: z.string().describe('the code'),
  summary: z.string().describe('the text before the code on its page'),
  similarity_score: z.number(),
});

export const source = z.looseObject({ source_id: z.string(), title: z.string().nullable().optional(), description: z.string().nullable().optional() });

export const sourceRef = z.union([z.string(), z.object({ source_id: z.string(), title: z.string().optional() })]);

export const feature = z.looseObject({ id: z.string().optional(), name: z.string(), description: z.string().optional(), priority: z.string().optional(), status: z.string().optional() });

export const project = z.looseObject({
  id: z.string(),
  title: z.string(),
  description: z.string().nullable().optional(),
  github_repo: z.string().nullable().optional(),
  prd: json.nullable().optional(),
  features: z.array(feature).optional(),
  docs: z.array(json).optional(),
  data: json.nullable().optional(),
  technical_sources: z.array(z.unknown()).optional(),
  business_sources: z.array(z.unknown()).optional(),
  pinned: z.boolean().optional(),
  color: z.string().optional(),
  icon: z.string().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
});

export const TASK_STATUSES = ['todo', 'doing', 'review', 'done'] as const;

export const task = z.looseObject({
  id: z.string(),
  project_id: z.string(),
  parent_task_id: z.string().nullable().optional(),
  title: z.string(),
  description: z.string().optional(),
  status: z.string(),
  assignee: z.string().optional(),
  task_order: z.number().optional(),
  feature: z.string().nullable().optional(),
  archived: z.boolean().optional(),
});

export const document = z.looseObject({ id: z.string(), title: z.string(), document_type: z.string(), content: z.unknown().optional() });

export const VERSION_FIELDS = ['docs', 'features', 'data', 'prd'] as const;

export const version = z.looseObject({ id: z.string().optional(), field_name: z.string(), version_number: z.number(), change_summary: z.string().nullable().optional(), content: z.unknown().optional() });

export const pagination = z.looseObject({ total: z.number(), page: z.number(), per_page: z.number() });

export { json };
