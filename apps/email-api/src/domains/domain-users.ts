import { Injectable } from '@nestjs/common';

export type DomainStepCounter = (projectId: string, domainId: string) => Promise<number>;

/**
 * Where domains are used outside the templates and campaigns: the workflows feature registers how
 * many of its steps send from a domain (through their template) at start (it depends on domains,
 * so the lookup goes this way round, as with usage/References).
 */
@Injectable()
export class DomainUsers {
  private counter: DomainStepCounter | null = null;

  register(counter: DomainStepCounter): void {
    this.counter = counter;
  }

  workflowSteps(projectId: string, domainId: string): Promise<number> {
    return this.counter ? this.counter(projectId, domainId) : Promise.resolve(0);
  }
}
