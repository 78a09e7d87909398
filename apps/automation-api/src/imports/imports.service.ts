import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { AutomationsService } from '../automations/automations.service';
import { ContactsService } from '../contacts/contacts.service';
import { EventsService } from '../events/events.service';
import type { ImportRequestDto, ImportResultDto } from './dto/import.dto';

/**
 * Import from another tool, all or nothing (one transaction): automations become drafts with origin
 * `import` and transition_mode on (until finish_migration); contacts keep imported_from.
 */
@Injectable()
export class ImportsService {
  constructor(
    private readonly automations: AutomationsService,
    private readonly contacts: ContactsService,
    private readonly events: EventsService,
    private readonly transactions: Transactions,
  ) {}

  async import(accountId: number, req: ImportRequestDto): Promise<ImportResultDto> {
    const automations = req.automations ?? [];
    const contacts = req.contacts ?? [];
    if (automations.length === 0 && contacts.length === 0) {
      throw new ApiError(400, 'VALIDATION_ERROR', 'automations or contacts must contain at least one item');
    }
    return this.transactions.transaction(async () => {
      const created = [];
      const notes: string[] = [];
      for (const [i, input] of automations.entries()) {
        try {
          const result = await this.automations.create(accountId, input, { origin: 'import', imported_from: req.source, transition_mode: true });
          created.push(result.automation);
          notes.push(...result.notes.map((n) => `automations.${i} (${result.automation.name}): ${n}`));
        } catch (err) {
          if (err instanceof ApiError && err.getStatus() === 400) throw new ApiError(400, 'VALIDATION_ERROR', `automations.${i}: ${err.message}`);
          throw err;
        }
      }
      const counts = await this.contacts.upsertImported(accountId, req.source, contacts);
      await this.events.record(
        accountId,
        { kind: 'import', text: `${created.length} automation(s), ${counts.created} new and ${counts.updated} merged contact(s) from ${req.source}`, ref: req.source },
      );
      return { automations: created, contacts: counts, notes };
    });
  }
}
