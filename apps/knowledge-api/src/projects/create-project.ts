import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ChatService } from '../chat/chat.service';
import { extractJsonObject } from '../chat/chat.client';
import type { ProgressReporter } from '../progress/progress.service';
import { CrawlCancelled, ProgressService } from '../progress/progress.service';
import type { ProgressRow } from '../progress/progress.types';
import { SourcesService } from '../sources/sources.service';
import type { CreateProjectDto, DocInputDto, FeatureDto } from './dto/project.dto';
import { ProjectsRepository } from './projects.repository';
import { assertUniqueIds, ProjectsService, sourceIdsOf, toDoc, toFeature } from './projects.service';
import type { Feature, JsonObject, ProjectDoc, VersionedField } from './projects.types';
import { TasksRepository } from './tasks.repository';
import { presentTask } from './tasks.service';

/** What a queued project creation carries (the progress row's `request`). */
export interface ProjectCreationRequest {
  project_id: string;
  title: string;
  description: string;
  github_repo: string | null;
  color: string;
  icon: string;
  prd: JsonObject | null;
  features: FeatureDto[];
  docs: DocInputDto[];
  data: JsonObject;
  technical_sources: string[];
  business_sources: string[];
  pinned: boolean;
}

export interface DraftedTask {
  title: string;
  description: string;
  feature: string | null;
}

export interface Draft {
  prd: JsonObject | null;
  features: Feature[];
  tasks: DraftedTask[];
}

const MAX_DRAFTED_FEATURES = 20;
const MAX_DRAFTED_TASKS = 50;

const str = (v: unknown, max: number): string => (typeof v === 'string' ? v.trim().slice(0, max) : '');

/** The features, tasks and PRD sections of a model's JSON answer; what is malformed is left out. */
export function parseDraft(answer: string): Draft {
  const json = extractJsonObject(answer);
  const features: Feature[] = (Array.isArray(json.features) ? json.features : [])
    .filter((f): f is JsonObject => !!f && typeof f === 'object' && !!str((f as JsonObject).name, 300))
    .slice(0, MAX_DRAFTED_FEATURES)
    .map((f) => {
      const priority = str(f.priority, 50);
      return toFeature({ name: str(f.name, 300), description: str(f.description, 10_000), ...(priority ? { priority } : {}), status: 'planned' });
    });
  const names = new Set(features.map((f) => f.name));
  const tasks: DraftedTask[] = (Array.isArray(json.tasks) ? json.tasks : [])
    .filter((t): t is JsonObject => !!t && typeof t === 'object' && !!str((t as JsonObject).title, 300))
    .slice(0, MAX_DRAFTED_TASKS)
    .map((t) => {
      const feature = str(t.feature, 300);
      return { title: str(t.title, 300), description: str(t.description, 20_000), feature: feature && names.has(feature) ? feature : feature || null };
    });
  const prd = json.prd && typeof json.prd === 'object' && !Array.isArray(json.prd) ? (json.prd as JsonObject) : null;
  return { prd, features, tasks };
}

export function draftPrompt(req: ProjectCreationRequest, sourceTitles: string[]): Array<{ role: 'system' | 'user'; content: string }> {
  return [
    {
      role: 'system',
      content:
        'You plan software projects. Answer with one JSON object only, no prose: ' +
        '{"prd": {"overview": string, "goals": [string], "scope": [string]}, ' +
        '"features": [{"name": string, "description": string, "priority": "high"|"medium"|"low"}], ' +
        '"tasks": [{"title": string, "description": string, "feature": string (a feature name)}]}. ' +
        `At most ${MAX_DRAFTED_FEATURES} features and ${MAX_DRAFTED_TASKS} tasks, each task small enough for one person in a day.`,
    },
    {
      role: 'user',
      content: [
        `Project: ${req.title}`,
        req.description ? `Description: ${req.description}` : '',
        req.github_repo ? `Repository: ${req.github_repo}` : '',
        req.features.length ? `Features already planned: ${req.features.map((f) => f.name).join('; ')}` : '',
        sourceTitles.length ? `Reference material: ${sourceTitles.join('; ')}` : '',
      ]
        .filter(Boolean)
        .join('\n'),
    },
  ];
}

/**
 * Use case: a project's creation, run as a job of the progress queue (kind `project`) on whichever
 * replica claims it, with progress like a crawl's: the linked sources checked again (a source
 * deleted since the request is left out, said in the log) → linked → when LLM_URL is set, features,
 * tasks and PRD sections drafted by the chat model from the description (a failure is logged and
 * the project made without them) → the documents made (the PRD as a document of type `prd`) → the
 * project, its links, its tasks and the first version of each JSON field stored in one transaction
 * → `completed` with `result` `{project_id, project, tasks_created, features_drafted, drafted}`.
 * The project's id is chosen in the request, so a run taken over by another replica stores it once.
 */
@Injectable()
export class CreateProject {
  private readonly logger = new Logger(CreateProject.name);

  constructor(
    private readonly projects: ProjectsService,
    private readonly rows: ProjectsRepository,
    private readonly tasks: TasksRepository,
    private readonly sources: SourcesService,
    private readonly chat: ChatService,
    private readonly progress: ProgressService,
    private readonly transactions: Transactions,
  ) {}

  /** Checks the request (sources exist, unique ids) and queues the job; answers its progress id and the project's id. */
  async queue(dto: CreateProjectDto): Promise<{ progressId: string; projectId: string }> {
    const technical = sourceIdsOf(dto.technical_sources);
    const business = sourceIdsOf(dto.business_sources);
    await this.projects.checkSources([...technical, ...business]);
    const features = (dto.features ?? []).map(toFeature);
    assertUniqueIds(features, 'feature');
    assertUniqueIds((dto.docs ?? []).map((d) => toDoc(d)), 'document');
    const projectId = randomUUID();
    const progressId = randomUUID();
    const request: ProjectCreationRequest = {
      project_id: projectId,
      title: dto.title.trim(),
      description: dto.description ?? '',
      github_repo: dto.github_repo ?? null,
      color: dto.color ?? 'blue',
      icon: dto.icon ?? 'Briefcase',
      prd: dto.prd ?? null,
      features,
      docs: dto.docs ?? [],
      data: dto.data ?? {},
      technical_sources: technical,
      business_sources: business,
      pinned: dto.pinned ?? false,
    };
    await this.progress.createJob(progressId, 'project', request as unknown as Record<string, unknown>, `Queued creation of project ${request.title}`);
    this.progress.announceQueued();
    return { progressId, projectId };
  }

  async run(row: ProgressRow, reporter: ProgressReporter): Promise<void> {
    const req = row.request as unknown as ProjectCreationRequest;
    // renews the lease (a chat call may take LLM_TIMEOUT_MS) and picks up a cancel
    const heartbeat = setInterval(() => void reporter.heartbeat().catch(() => undefined), 1000);
    heartbeat.unref();
    try {
      const wanted = [...req.technical_sources, ...req.business_sources];
      await reporter.phase('analyzing', 0, {}, `Checking ${wanted.length} linked source${wanted.length === 1 ? '' : 's'}`);
      const titles = await this.sources.titles(wanted);
      for (const id of wanted.filter((s) => !titles.has(s))) await reporter.log(`Source ${id} no longer exists: not linked`);
      const technical = req.technical_sources.filter((s) => titles.has(s));
      const business = req.business_sources.filter((s) => titles.has(s));
      await reporter.phase('source_linking', 0, {}, `Linking ${technical.length} technical and ${business.length} business sources`);

      let draft: Draft = { prd: null, features: [], tasks: [] };
      let drafted = false;
      if (this.chat.configured) {
        await reporter.phase('ai_generation', 0, {}, `Drafting features and tasks with ${this.chat.model}`);
        try {
          const answer = await this.chat.complete(draftPrompt(req, [...titles.values()]), { json: true, maxTokens: 4000, signal: reporter.abort.signal });
          draft = parseDraft(answer);
          drafted = true;
          await reporter.phase('ai_generation', 1, {}, `Drafted ${draft.features.length} features and ${draft.tasks.length} tasks`);
        } catch (err) {
          reporter.check();
          await reporter.log(`Drafting failed (${(err as Error).message}): the project is created without drafted features and tasks`);
        }
      } else {
        await reporter.log('LLM_URL not set: features and tasks are not drafted');
      }

      await reporter.phase('generating_docs', 0, {}, 'Creating the project documents');
      const now = new Date().toISOString();
      const prd: JsonObject = req.prd && Object.keys(req.prd).length ? req.prd : (draft.prd ?? (req.description ? { overview: req.description } : {}));
      const docs: ProjectDoc[] = req.docs.map((d) => toDoc(d, now));
      if (!docs.some((d) => d.document_type === 'prd')) {
        docs.unshift(toDoc({ title: `${req.title}: product requirements`, document_type: 'prd', content: prd, author: drafted ? this.chat.model! : undefined }, now));
      }
      const given = new Set(req.features.map((f) => f.name));
      const features: Feature[] = [...req.features.map(toFeature), ...draft.features.filter((f) => !given.has(f.name))];

      await reporter.phase('saving_to_database', 0, {}, 'Storing the project');
      const { created, taskRows } = await this.transactions.transaction(async () => {
        const inserted = await this.rows.insert({
          id: req.project_id,
          title: req.title,
          description: req.description,
          github_repo: req.github_repo,
          prd,
          features,
          docs,
          data: req.data,
          pinned: req.pinned,
          color: req.color,
          icon: req.icon,
        });
        if (!inserted) return { created: false, taskRows: [] };
        await this.rows.setLinks(req.project_id, 'technical', technical);
        await this.rows.setLinks(req.project_id, 'business', business);
        const initial: Array<[VersionedField, unknown, boolean]> = [
          ['prd', prd, Object.keys(prd).length > 0],
          ['features', features, features.length > 0],
          ['data', req.data, Object.keys(req.data).length > 0],
        ];
        for (const [field, content, nonEmpty] of initial) {
          if (!nonEmpty) continue;
          await this.rows.addVersion(req.project_id, randomUUID(), { field_name: field, document_id: null, content, change_summary: 'Project created', change_type: 'create', created_by: 'system' });
        }
        for (const doc of docs) {
          await this.rows.addVersion(req.project_id, randomUUID(), { field_name: 'docs', document_id: doc.id, content: doc, change_summary: `Created document ${doc.title}`, change_type: 'create', created_by: 'system' });
        }
        const out = [];
        for (const [i, t] of draft.tasks.entries()) {
          out.push(
            await this.tasks.insert(
              { id: randomUUID(), project_id: req.project_id, parent_task_id: null, title: t.title, description: t.description, status: 'todo', assignee: 'User', feature: t.feature, sources: [], code_examples: [] },
              i,
            ),
          );
        }
        return { created: true, taskRows: out };
      });
      if (!created) await reporter.log('The project was stored by an earlier run');
      await reporter.phase('finalization', 0, {}, 'Project stored');
      const project = await this.projects.get(req.project_id);
      const result = {
        project_id: req.project_id,
        project,
        tasks_created: taskRows.length,
        features_drafted: draft.features.length,
        drafted,
      };
      await reporter.complete({ result }, `Project ${req.title} created${taskRows.length ? ` with ${taskRows.length} drafted tasks` : ''}`);
      this.projects.emit(req.project_id, 'project_created', { project_id: req.project_id, project, tasks: taskRows.map(presentTask) });
    } catch (err) {
      if (reporter.isLost) return;
      if (err instanceof CrawlCancelled || reporter.isCancelled) {
        await reporter.fail('cancelled', 'Project creation cancelled').catch(() => undefined);
        return;
      }
      this.logger.error(`project creation ${row.progress_id}: ${(err as Error).message}`);
      await reporter.fail('error', (err as Error).message).catch(() => undefined);
    } finally {
      clearInterval(heartbeat);
    }
  }
}
