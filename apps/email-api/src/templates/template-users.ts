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

/**
 * Where templates are used outside this feature: the workflows feature registers its finder at
 * start (it depends on templates, so the lookup goes this way round, as with usage/References).
 */
@Injectable()
export class TemplateUsers {
  private finder: TemplateStepFinder | null = null;

  register(finder: TemplateStepFinder): void {
    this.finder = finder;
  }

  workflowSteps(projectId: string, templateId: string): Promise<TemplateStepUse[]> {
    return this.finder ? this.finder(projectId, templateId) : Promise.resolve([]);
  }
}
