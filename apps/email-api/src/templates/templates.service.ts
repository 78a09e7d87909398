import { Injectable, type OnModuleInit } from '@nestjs/common';
import { References } from '../usage/references.service';
import { placeholderPattern } from '../usage/usage';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { DomainsService } from '../domains/domains.service';
import { TemplateUsers, type TemplateStepUse } from './template-users';
import { TemplatesRepository, toTemplate, type Template, type TemplateRow } from './templates.repository';

export const templateNotFound = () => new ApiError(404, 'TEMPLATE_NOT_FOUND', 'Template not found', { suggestion: 'List the project\'s templates with GET /templates.' });

export interface TemplateFields {
  name: string;
  subject: string;
  body: string;
  from: string;
}

@Injectable()
export class TemplatesService implements OnModuleInit {
  constructor(
    private readonly transactions: Transactions,
    private readonly templates: TemplatesRepository,
    private readonly domains: DomainsService,
    private readonly references: References,
    private readonly users: TemplateUsers,
  ) {}

  /** Templates reference custom fields in placeholders (events never). */
  onModuleInit(): void {
    this.references.register('templates', async (projectId, ref) => (ref.kind === 'field' ? this.templates.referencing(projectId, placeholderPattern(ref.name)) : []));
  }

  async list(projectId: string): Promise<Template[]> {
    return (await this.templates.list(projectId)).map(toTemplate);
  }

  async row(projectId: string, id: string, lock = false): Promise<TemplateRow> {
    const row = await this.templates.findById(projectId, id, lock);
    if (!row) throw templateNotFound();
    return row;
  }

  async get(projectId: string, id: string): Promise<Template> {
    return toTemplate(await this.row(projectId, id));
  }

  /** The template, its row locked until the caller's transaction ends: a delete waits and then sees what the caller saved. */
  async getForUse(projectId: string, id: string): Promise<Template> {
    return toTemplate(await this.row(projectId, id, true));
  }

  create(projectId: string, t: TemplateFields): Promise<Template> {
    return this.transactions.transaction(async () => {
      const domain = await this.domains.requireVerifiedSender(projectId, t.from);
      return toTemplate(await this.templates.insert(projectId, domain.id, { ...t, from: t.from.toLowerCase() }));
    });
  }

  update(projectId: string, id: string, patch: Partial<TemplateFields>): Promise<Template> {
    return this.transactions.transaction(async () => {
      const row = await this.row(projectId, id, true);
      const next = { name: patch.name ?? row.name, subject: patch.subject ?? row.subject, body: patch.body ?? row.body, from: (patch.from ?? row.from_email).toLowerCase() };
      const domainId = patch.from !== undefined ? (await this.domains.requireVerifiedSender(projectId, next.from)).id : row.domain_id;
      return toTemplate((await this.templates.update(id, domainId, next))!);
    });
  }

  duplicate(projectId: string, id: string): Promise<Template> {
    return this.transactions.transaction(async () => {
      const row = await this.row(projectId, id);
      const domain = await this.domains.requireVerifiedSender(projectId, row.from_email);
      return toTemplate(await this.templates.insert(projectId, domain.id, { name: `${row.name} (copy)`, subject: row.subject, body: row.body, from: row.from_email }));
    });
  }

  async usage(projectId: string, id: string): Promise<{ campaigns: Array<{ id: string; name: string; status: string }>; workflows: TemplateStepUse[] }> {
    await this.row(projectId, id);
    const [campaigns, workflows] = await Promise.all([this.templates.campaigns(id, false), this.users.workflowSteps(projectId, id)]);
    return { campaigns, workflows };
  }

  remove(projectId: string, id: string): Promise<void> {
    return this.transactions.transaction(async () => {
      await this.row(projectId, id, true);
      const used = await this.templates.campaigns(id, true);
      if (used.length) {
        throw new ApiError(409, 'TEMPLATE_IN_USE', `The template is used by ${used.length} draft, scheduled or sending campaign(s): ${used.map((c) => c.name).join(', ')}`, {
          suggestion: 'See GET /templates/{id}/usage; finish, cancel or delete those campaigns first.',
        });
      }
      const steps = await this.users.workflowSteps(projectId, id);
      if (steps.length) {
        throw new ApiError(409, 'TEMPLATE_IN_USE', `The template is sent by ${steps.length} workflow step(s): ${steps.map((s) => `"${s.stepName}" of workflow "${s.name}"`).join(', ')}`, {
          suggestion: 'See GET /templates/{id}/usage; change those SEND_EMAIL steps to another template (PATCH /workflows/{id}/steps/{stepId}) or delete them first.',
        });
      }
      const settings = await this.users.settings(projectId, id);
      if (settings.length) {
        throw new ApiError(409, 'TEMPLATE_IN_USE', `The template is the project's ${settings.join(' and ')}`, {
          suggestion: 'Choose another template or turn the setting off first (PATCH /users/@me/projects/{id} with doubleOptIn).',
        });
      }
      await this.templates.delete(id);
    });
  }
}
