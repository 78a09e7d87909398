import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { DomainsService } from '../domains/domains.service';
import { TemplateUsers } from '../templates/template-users';
import { TemplatesService } from '../templates/templates.service';
import type { OptInSettings } from './opt-in-settings';
import { OptInRepository } from './opt-in.repository';

const FIELD = 'doubleOptIn.templateId';

/** The projects' double opt-in setting: read by the confirmation mails, changed through the project's settings. */
@Injectable()
export class OptInSettingsService implements OnModuleInit {
  constructor(
    private readonly transactions: Transactions,
    private readonly settings: OptInRepository,
    private readonly templates: TemplatesService,
    private readonly domains: DomainsService,
    private readonly templateUsers: TemplateUsers,
  ) {}

  /**
   * The template of an enabled double opt-in cannot be deleted (409 TEMPLATE_IN_USE); with double
   * opt-in off, deleting it clears the setting's template (the column's ON DELETE SET NULL).
   */
  onModuleInit(): void {
    this.templateUsers.registerSettings(async (projectId, templateId) => {
      const settings = await this.settings.find(projectId);
      return settings.enabled && settings.templateId === templateId ? ['double opt-in confirmation mail'] : [];
    });
  }

  get(projectId: string): Promise<OptInSettings> {
    return this.settings.find(projectId);
  }

  getMany(projectIds: string[]): Promise<Map<string, OptInSettings>> {
    return this.settings.findMany(projectIds);
  }

  /**
   * `{enabled?, templateId?}`: what is given changes. Turning it on needs a template (422 on
   * `doubleOptIn.templateId`, code `required`); the template must exist in the project (`not_found`)
   * and send from a verified domain of the project (`domain_not_verified`).
   */
  configure(projectId: string, change: { enabled?: boolean; templateId?: string | null }): Promise<OptInSettings> {
    return this.transactions.transaction(async () => {
      const current = await this.settings.lock(projectId);
      const next: OptInSettings = {
        enabled: change.enabled ?? current.enabled,
        templateId: change.templateId !== undefined ? change.templateId : current.templateId,
      };
      if (next.enabled && !next.templateId) {
        throw invalid('required', 'a template is required to turn double opt-in on', 'Create a template (POST /templates) whose body holds {{confirmUrl}} and pass its id.');
      }
      if (next.templateId && (change.templateId !== undefined || (next.enabled && !current.enabled))) await this.checkTemplate(projectId, next.templateId);
      return this.settings.save(projectId, next);
    });
  }

  private async checkTemplate(projectId: string, templateId: string): Promise<void> {
    let from: string;
    try {
      // locked until the setting is saved: a delete of the template waits, then sees it in use
      from = (await this.templates.getForUse(projectId, templateId)).from;
    } catch (err) {
      if (err instanceof ApiError && err.getStatus() === 404) throw invalid('not_found', 'no template with this id in the project', 'List the project\'s templates with GET /templates.');
      throw err;
    }
    await this.domains.requireVerifiedSender(projectId, from, FIELD);
  }
}

function invalid(code: string, message: string, suggestion: string): ApiError {
  return new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', { errors: [{ field: FIELD, message, code }], suggestion });
}
