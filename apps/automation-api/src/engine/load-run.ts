import { Injectable } from '@nestjs/common';
import { AutomationsService } from '../automations/automations.service';
import type { AutomationEntity } from '../automations/entities/automation.entity';
import { ContactsService } from '../contacts/contacts.service';
import type { ContactEntity } from '../contacts/entities/contact.entity';
import type { RunRow } from '../runs/run';
import { RunsService } from '../runs/runs.service';

export interface LoadedRun {
  run: RunRow;
  automation: AutomationEntity;
  /** The person's contact row (null when there is none). */
  contact: ContactEntity | null;
}

/** A run with its automation and the person's contact row, once the work item is applied; null when the run or its automation is gone. */
@Injectable()
export class LoadRun {
  constructor(
    private readonly runs: RunsService,
    private readonly automations: AutomationsService,
    private readonly contacts: ContactsService,
  ) {}

  async execute(runId: string, accountId: number): Promise<LoadedRun | null> {
    const run = await this.runs.find(runId);
    if (!run) return null;
    const automation = await this.automations.findById(run.automation_id);
    if (!automation) return null;
    return { run, automation, contact: await this.contacts.find(accountId, run.contact_ig_id) };
  }
}
