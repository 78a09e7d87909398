import { Injectable } from '@nestjs/common';
import { buildMessagesPreview, coversPost, isLive } from '../automations/automation.presenter';
import { AutomationsService } from '../automations/automations.service';
import type { AutomationEntity } from '../automations/entities/automation.entity';
import { matchAll } from '../matching/keyword-matcher';
import type { PreviewDto, PreviewRequestDto } from './dto/preview.dto';

@Injectable()
export class PreviewService {
  constructor(private readonly automations: AutomationsService) {}

  async preview(accountId: number, req: PreviewRequestDto): Promise<PreviewDto> {
    const trigger = req.trigger ?? 'comment';
    let candidates: AutomationEntity[];
    if (req.automation_id !== undefined) {
      candidates = [await this.automations.entity(accountId, req.automation_id)];
    } else {
      candidates = (await this.automations.entities(accountId)).filter((a) => isLive(a) || (req.include_drafts === true && a.status === 'draft'));
    }
    candidates = candidates.filter((a) => a.trigger === trigger && inScope(a, req.media_id));
    const matches = matchAll(req.text, candidates);
    const best = matches[0];
    if (!best) return { match: null, steps: [] };
    const a = best.rule;
    return {
      match: {
        automation_id: a.id,
        name: a.name,
        keyword: best.keyword,
        match_mode: a.match_mode,
        priority: a.priority,
        status: a.status,
        also_matched: matches.slice(1).map((m) => m.rule.id),
      },
      steps: buildMessagesPreview(a, req.username ?? 'username').steps,
    };
  }
}

function inScope(a: AutomationEntity, mediaId: string | undefined): boolean {
  if (a.trigger !== 'comment') return true;
  if (mediaId) return coversPost(a, mediaId);
  return !a.next_post && (!a.media_ids || a.media_ids.length === 0);
}
