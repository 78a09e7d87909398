import { Injectable } from '@nestjs/common';
import type { AccountEntity } from '../accounts/entities/account.entity';
import type { AutomationEntity } from '../automations/entities/automation.entity';
import { ClicksService } from '../clicks/clicks.service';
import { buttonTemplate, type GraphButton, type GraphMessage } from '../graph/graph-client';
import type { RunRow } from '../runs/run';
import { newClickCode } from './engine-helpers';
import type { MachineMessage } from './run-machine';

/**
 * The platform message of a state-machine message: text, a postback button, or link buttons whose
 * URLs are tracked `/r/{code}` links (clicks feature) with track_clicks and a public base URL.
 */
@Injectable()
export class ComposeMessage {
  constructor(private readonly clicks: ClicksService) {}

  async execute(account: AccountEntity, a: AutomationEntity, run: RunRow, msg: MachineMessage): Promise<GraphMessage> {
    if (msg.kind === 'public_reply') return { text: msg.text };
    if ('postback' in msg && msg.postback) return buttonTemplate(msg.text, [{ type: 'postback', title: msg.postback.title, payload: msg.postback.payload }]);
    if ('links' in msg && msg.links.length > 0) {
      const buttons: GraphButton[] = [];
      for (const l of msg.links) buttons.push({ type: 'web_url', title: l.title, url: await this.linkUrl(account, a, run, l.url, l.index) });
      return buttonTemplate(msg.text, buttons);
    }
    return { text: msg.text };
  }

  /** `${PUBLIC_BASE_URL}/r/{code}` with track_clicks (and a public base URL), else the target itself. */
  private async linkUrl(account: AccountEntity, a: AutomationEntity, run: RunRow, url: string, index: number): Promise<string> {
    if (!a.track_clicks || !account.public_base_url) return url;
    const code = await this.clicks.linkToken(account.id, a.id, run.id, index, url, () => newClickCode());
    return `${account.public_base_url.replace(/\/$/, '')}/r/${code}`;
  }
}
