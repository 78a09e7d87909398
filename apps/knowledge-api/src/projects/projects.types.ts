/** The shapes of the projects feature (README "Projects and tasks" describes them). */

export type JsonObject = Record<string, unknown>;

export interface Feature {
  id: string;
  name: string;
  description: string;
  priority?: string;
  status: string;
}

export interface ProjectDoc {
  id: string;
  title: string;
  content: JsonObject;
  document_type: string;
  tags: string[];
  author: string | null;
  created_at: string;
  updated_at: string;
}

export interface SourceLink {
  source_id: string;
  title: string;
}

export interface ProjectRow {
  id: string;
  title: string;
  description: string;
  github_repo: string | null;
  prd: JsonObject;
  features: Feature[];
  docs: ProjectDoc[];
  data: JsonObject;
  pinned: boolean;
  color: string;
  icon: string;
  created_at: Date;
  updated_at: Date;
}

export interface Project extends Omit<ProjectRow, 'created_at' | 'updated_at'> {
  technical_sources: SourceLink[];
  business_sources: SourceLink[];
  created_at: string;
  updated_at: string;
}

export type SourceKind = 'technical' | 'business';

export const VERSIONED_FIELDS = ['docs', 'features', 'data', 'prd'] as const;
export type VersionedField = (typeof VERSIONED_FIELDS)[number];
export type ChangeType = 'create' | 'update' | 'delete' | 'restore' | 'manual';

export interface VersionRow {
  id: string;
  project_id: string;
  field_name: VersionedField;
  version_number: number;
  document_id: string | null;
  content: unknown;
  change_summary: string;
  change_type: ChangeType;
  created_by: string;
  created_at: Date;
}

export interface NewVersion {
  field_name: VersionedField;
  document_id: string | null;
  content: unknown;
  change_summary: string;
  change_type: ChangeType;
  created_by: string;
}

export const TASK_STATUSES = ['todo', 'doing', 'review', 'done'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface TaskSourceRef {
  source_id: string;
  title?: string;
  url?: string;
  relevance?: string;
}

export interface TaskCodeExampleRef {
  code_example_id?: number;
  source_id?: string;
  file?: string;
  function?: string;
  purpose?: string;
}

export interface TaskRow {
  id: string;
  project_id: string;
  parent_task_id: string | null;
  title: string;
  description: string;
  status: TaskStatus;
  assignee: string;
  task_order: number;
  feature: string | null;
  sources: TaskSourceRef[];
  code_examples: TaskCodeExampleRef[];
  archived: boolean;
  archived_at: Date | null;
  archived_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewTask {
  id: string;
  project_id: string;
  parent_task_id: string | null;
  title: string;
  description: string;
  status: TaskStatus;
  assignee: string;
  feature: string | null;
  sources: TaskSourceRef[];
  code_examples: TaskCodeExampleRef[];
}

export interface TaskFilters {
  project_id?: string;
  status?: TaskStatus;
  assignee?: string;
  feature?: string;
  parent_task_id?: string;
  include_archived?: boolean;
  include_closed?: boolean;
}
