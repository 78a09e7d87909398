import { Body, Controller, HttpCode, Post, type Type } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { ApiKeyAccess } from '../access/api-key.guard';
import { CrmService } from './crm.service';
import { CrmRequestDto } from './dto/crm-request.dto';

const DESCRIPTION = [
  'The CRM data hub (`api_key` in the body or `X-API-Key`).',
  '',
  '- **push** `{data: {accounts, contacts, deals, leads, tasks}}`: each object stored raw by kind and `id`; pushing an id again merges (the pushed fields',
  '  replace the stored ones, others stay), `deleted: true` removes it; the whole push in one transaction, a malformed one stores nothing (422 naming',
  '  each entry) → `{stored: {kind: n}, deleted: {kind: n}}`.',
  '- **get** (`kind`, `limit` ≤ 5000, `offset`) → `{data: {kind: [objects]}, counts}`.',
  '- **stats** → `{total_pipeline, weighted_pipeline, win_rate_pct, avg_deal_size, open_leads, overdue_tasks, total_accounts, total_contacts,',
  '  stage_breakdown, lead_sources, pipeline_by_owner}`. **Formulas**: a deal is won when its stage is one of CRM_WON_STAGES, lost when one of',
  '  CRM_LOST_STAGES (case, spaces, `-` and `_` ignored), open otherwise; `total_pipeline` = Σ amount of open deals; `weighted_pipeline` =',
  '  Σ amount × probability of open deals (probability 0–1, or a percentage above 1); `win_rate_pct` = won / (won + lost) × 100 (null when no',
  '  deal is closed); `avg_deal_size` = Σ amount of won deals / won deals (null when none); `open_leads` = leads whose status is not one of',
  '  CRM_CLOSED_LEAD_STATUSES; `overdue_tasks` = tasks not done (`completed`/`done` true or status completed, done, closed) due before now;',
  '  `stage_breakdown` = per stage `{count, amount}`; `lead_sources` = leads per source; `pipeline_by_owner` = per owner of open deals',
  '  `{count, amount, weighted}`. Fields read: amount (`amount`, `value`, `deal_value`), probability (`probability`, `win_probability`), stage',
  '  (`stage`, `dealstage`, `stage_name`, `status`), owner (`owner`, `owner_name`, `owner_id`, `hubspot_owner_id`), lead status (`status`,',
  '  `lead_status`), source (`source`, `lead_source`, `utm_source`), task due date (`due_date`, `due`, `due_at`).',
].join('\n');

/** `POST /{crm}-data` under LOGISTICS_CRM. */
export function crmControllerAt(crm: string): Type<unknown> {
  @ApiTags('crm')
  @Controller(`${crm}-data`)
  class CrmController {
    constructor(readonly crmService: CrmService) {}

    @Post()
    @HttpCode(200)
    @ApiKeyAccess()
    @ApiOperation({ summary: 'Push, read and sum up CRM data', description: DESCRIPTION })
    @ApiOkResponse({ description: '`{success, action, …}`' })
    @ApiUnprocessableEntityResponse({ description: '`VALIDATION_ERROR` naming each bad entry' })
    async handle(@Body() dto: CrmRequestDto): Promise<Record<string, unknown>> {
      if (dto.action === 'push') return { success: true, action: 'push', ...(await this.crmService.push(dto.data)) };
      if (dto.action === 'get') return { success: true, action: 'get', ...(await this.crmService.get(dto.kind, dto.limit, dto.offset)) };
      return { success: true, action: 'stats', ...(await this.crmService.stats()) };
    }
  }
  return CrmController;
}
