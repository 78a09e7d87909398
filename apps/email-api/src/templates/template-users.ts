import { Injectable } from '@nestjs/common';

/** A workflow step sending a template. */
export interface TemplateStepUse {
  /** The workflow. */
  id: string;
  name: string;
  enabled: boolean;
  stepId: string;
  stepName: string;
}

export type TemplateStepFinder = (projectId: string, templateId: string) => Promise<TemplateStepUse[]>;

/** The project settings that send a template (their names, for the 409), e.g. the double opt-in confirmation mail. */
export type TemplateSettingFinder = (projectId: string, templateId: string) => Promise<string[]>;

/**
 * Where templates are used outside this feature: the workflows and opt-in features register their
 * finders at start (they depend on templates, so the lookup goes this way round, as with usage/References).
 */
@Injectable()
export class TemplateUsers {
  private finder: TemplateStepFinder | null = null;
  private settingFinder: TemplateSettingFinder | null = null;

  register(finder: TemplateStepFinder): void {
    this.finder = finder;
  }

  registerSettings(finder: TemplateSettingFinder): void {
    this.settingFinder = finder;
  }

  workflowSteps(projectId: string, templateId: string): Promise<TemplateStepUse[]> {
    return this.finder ? this.finder(projectId, templateId) : Promise.resolve([]);
  }

  settings(projectId: string, templateId: string): Promise<string[]> {
    return this.settingFinder ? this.settingFinder(projectId, templateId) : Promise.resolve([]);
  }
}
