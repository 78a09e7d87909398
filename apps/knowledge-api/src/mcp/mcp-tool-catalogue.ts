import type { McpToolInfo } from './tool-parameters';
/**
 * The MCP server's tools as its code defines them (apps/knowledge-mcp/src/tools/tools.ts), in the
 * spec's MCP tool shape: what `GET /api/mcp/tools` answers (`source: "catalogue"`) when the server
 * does not run or does not answer. Data, not code shared between the apps; `mcp.e2e-spec.ts` checks
 * that it equals what the running server lists, so a tool changed there must be changed here.
 */
export const MCP_TOOL_CATALOGUE: McpToolInfo[] = [
  {
    name: "perform_rag_query",
    module: "rag",
    description:
      "Searches the crawled pages and uploaded documents (full-text, or hybrid with vectors where an embeddings server is configured). Results carry content, url, similarity_score and the source_id; filter by one source with `source` (see get_available_sources).",
    parameters: [
      { name: "query", type: "string", required: true },
      { name: "source", type: "string", required: false },
      { name: "match_count", type: "integer", required: false }
    ],
  },
  {
    name: "search_code_examples",
    module: "rag",
    description:
      "Searches the code examples (fenced code blocks of at least 250 characters) found in the knowledge base, optionally of one source or one language (e.g. python).",
    parameters: [
      { name: "query", type: "string", required: true },
      { name: "source", type: "string", required: false },
      { name: "language", type: "string", required: false },
      { name: "match_count", type: "integer", required: false }
    ],
  },
  {
    name: "get_available_sources",
    module: "rag",
    description:
      "Lists the sources of the knowledge base (crawled sites and uploaded documents) with their source_id, for the `source` filter of the search tools.",
    parameters: [],
  },
  {
    name: "manage_project",
    module: "projects",
    description:
      "Projects: action \"list\"; \"get\" (project_id); \"create\" (title, optional fields: finishes in the background, answers progress_id); \"update\" (project_id and the fields to change); \"delete\" (project_id: the project and all its tasks).",
    parameters: [
      { name: "action", type: "string", required: true },
      { name: "project_id", type: "string", required: false },
      { name: "title", type: "string", required: false },
      { name: "description", type: "string", required: false },
      { name: "github_repo", type: "string", required: false },
      { name: "color", type: "string", required: false },
      { name: "icon", type: "string", required: false },
      { name: "pinned", type: "boolean", required: false },
      { name: "prd", type: "object", required: false },
      { name: "features", type: "array", required: false },
      { name: "data", type: "object", required: false },
      { name: "technical_sources", type: "array", required: false },
      { name: "business_sources", type: "array", required: false }
    ],
  },
  {
    name: "manage_task",
    module: "projects",
    description:
      "Tasks of projects: \"list\" (filters project_id, status, assignee, feature, include_archived, include_closed, page, per_page); \"get\" (task_id); \"create\" (project_id, title, optional fields; task_order places it within its status); \"update\" (task_id and the fields to change); \"delete\" (task_id: archives it).",
    parameters: [
      { name: "action", type: "string", required: true },
      { name: "task_id", type: "string", required: false },
      { name: "project_id", type: "string", required: false },
      { name: "title", type: "string", required: false },
      { name: "description", type: "string", required: false },
      { name: "status", type: "string", required: false },
      { name: "assignee", type: "string", required: false },
      { name: "task_order", type: "integer", required: false },
      { name: "feature", type: "string", required: false },
      { name: "parent_task_id", type: "string", required: false },
      { name: "sources", type: "array", required: false },
      { name: "code_examples", type: "array", required: false },
      { name: "include_archived", type: "boolean", required: false },
      { name: "include_closed", type: "boolean", required: false },
      { name: "page", type: "integer", required: false },
      { name: "per_page", type: "integer", required: false }
    ],
  },
  {
    name: "manage_document",
    module: "projects",
    description:
      "Documents of a project (its docs: PRDs, specs, notes): \"list\", \"get\" (doc_id), \"add\" (document_type, title, optional content object, tags, author), \"update\" (doc_id and the fields to change), \"delete\" (doc_id). Every change records a version (manage_versions).",
    parameters: [
      { name: "action", type: "string", required: true },
      { name: "project_id", type: "string", required: true },
      { name: "doc_id", type: "string", required: false },
      { name: "document_type", type: "string", required: false },
      { name: "title", type: "string", required: false },
      { name: "content", type: "object", required: false },
      { name: "tags", type: "array", required: false },
      { name: "author", type: "string", required: false }
    ],
  },
  {
    name: "manage_versions",
    module: "projects",
    description:
      "Versions of a project's fields (docs, features, data, prd): \"list\" (optional field_name, document_id), \"get\" (field_name, version_number: with its content), \"create\" (field_name, content: a snapshot), \"restore\" (field_name, version_number: the field, or the one document, goes back to that version).",
    parameters: [
      { name: "action", type: "string", required: true },
      { name: "project_id", type: "string", required: true },
      { name: "field_name", type: "string", required: false },
      { name: "version_number", type: "integer", required: false },
      { name: "content", type: "any", required: false },
      { name: "change_summary", type: "string", required: false },
      { name: "document_id", type: "string", required: false },
      { name: "created_by", type: "string", required: false },
      { name: "restored_by", type: "string", required: false }
    ],
  },
  {
    name: "get_project_features",
    module: "projects",
    description:
      "The features of one project: id, name, description, priority and status.",
    parameters: [
      { name: "project_id", type: "string", required: true }
    ],
  },
  {
    name: "health_check",
    module: "server",
    description:
      "Whether this server and knowledge-api behind it answer: knowledge-api's health detail (database, embeddings, vector store, reranking) and this server's uptime.",
    parameters: [],
  },
  {
    name: "session_info",
    module: "server",
    description:
      "The MCP session this call arrived on (id, transport, since when) and the server's open sessions and uptime.",
    parameters: [],
  },
];
