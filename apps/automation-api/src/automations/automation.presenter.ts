import { overlappingKeywords } from '../matching/keyword-matcher';
import { MASKED_SECRET } from './automation.defaults';
import type { AutomationDto, AutomationSummaryDto, MessagesPreviewDto, PreviewButtonDto, PreviewStepDto } from './dto/automation.dto';
import type { AutomationEntity } from './entities/automation.entity';

/** Pure mapping from rows to the spec's response shapes, plus the message preview and the configuration hints. */

export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/** `YYYY-MM-DD HH:MM:SS` in UTC (AutomationSummary.updated_at). */
export function sqlUtc(d: Date): string {
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

export function toAutomationDto(a: AutomationEntity): AutomationDto {
  return {
    id: a.id,
    name: a.name,
    status: a.status,
    active: a.active,
    trigger: a.trigger,
    media_ids: a.media_ids,
    next_post: a.next_post,
    reel_caption: a.reel_caption,
    reel_publish_at: iso(a.reel_publish_at),
    keywords: a.keywords,
    match_mode: a.match_mode,
    exclude_keywords: a.exclude_keywords,
    public_replies: a.public_replies,
    opening_text: a.opening_text,
    opening_button: a.opening_button,
    follow_gate: a.follow_gate,
    gate_text: a.gate_text,
    gate_button: a.gate_button,
    link_url: a.link_url,
    link_text: a.link_text,
    link_button: a.link_button,
    extra_links: a.extra_links,
    follow_up_text: a.follow_up_text,
    follow_up_minutes: a.follow_up_minutes,
    email_gate: a.email_gate,
    email_text: a.email_text,
    email_retry_text: a.email_retry_text,
    email_skip_if_known: a.email_skip_if_known,
    webhook_url: a.webhook_url,
    // The spec: "always returned masked as ***" — whether or not a secret is stored, so a response never
    // tells anything about the secret (`notes` on create say when one is set without a URL).
    webhook_secret: MASKED_SECRET,
    track_clicks: a.track_clicks,
    tags: a.tags,
    once_per_user: a.once_per_user,
    priority: a.priority,
    notes: a.notes,
    skip_if_answered: a.skip_if_answered,
    pending_next: a.pending_next,
    reel_status: a.reel_status,
    reel_media_id: a.reel_media_id,
    reel_attached_at: iso(a.reel_attached_at),
    reel_expired_at: iso(a.reel_expired_at),
    reel_suggestion: a.reel_suggestion,
    transition_mode: a.transition_mode,
    origin: a.origin,
    imported_from: a.imported_from,
    created_at: a.created_at.toISOString(),
    updated_at: a.updated_at.toISOString(),
  };
}

/** The posts an automation covers, as AutomationSummary.posts writes it. */
export function postsOf(a: AutomationEntity): string | string[] {
  if (a.trigger !== 'comment') return 'all';
  if (a.next_post) {
    if (a.reel_status === 'attached' && a.reel_media_id) return [a.reel_media_id];
    return a.reel_status === 'expired' ? 'next post (expired)' : 'next post (waiting)';
  }
  return a.media_ids && a.media_ids.length ? a.media_ids : 'all';
}

/** Whether the automation answers comments under this post now. */
export function coversPost(a: AutomationEntity, mediaId: string): boolean {
  if (a.trigger !== 'comment') return false;
  if (a.next_post) return a.reel_status === 'attached' && a.reel_media_id === mediaId;
  return !a.media_ids || a.media_ids.length === 0 || a.media_ids.includes(mediaId);
}

/** Answering: status active and the active switch on. */
export function isLive(a: AutomationEntity): boolean {
  return a.status === 'active' && a.active;
}

export interface RunCounters {
  triggered: number;
  link_sent: number;
  clicked: number;
}

export function toSummary(a: AutomationEntity, c: RunCounters | undefined): AutomationSummaryDto {
  return {
    id: a.id,
    name: a.name,
    status: a.status,
    active: a.active,
    trigger: a.trigger,
    keywords: a.keywords,
    posts: postsOf(a),
    reel_status: a.reel_status,
    reel_caption: a.reel_caption,
    reel_publish_at: iso(a.reel_publish_at),
    reel_suggestion: a.reel_suggestion,
    follower_check: a.follow_gate,
    email_gate: a.email_gate,
    webhook: a.webhook_url !== null,
    link: a.link_url,
    transition_mode: a.transition_mode,
    origin: a.origin,
    triggered: c?.triggered ?? 0,
    link_sent: c?.link_sent ?? 0,
    clicked: c?.clicked ?? 0,
    updated_at: sqlUtc(a.updated_at),
  };
}

export function fill(text: string, username: string): string {
  return text.split('{username}').join(username);
}

/** The button that opens the conversation, or null when the link goes out in the first DM. */
export function effectiveOpeningButton(a: AutomationEntity): string | null {
  return a.transition_mode ? null : a.opening_button;
}

function linkButtons(a: AutomationEntity): PreviewButtonDto[] {
  const buttons: PreviewButtonDto[] = [];
  if (a.link_url) buttons.push({ type: 'web_url', title: a.link_button, url: a.link_url });
  for (const l of a.extra_links) buttons.push({ type: 'web_url', title: l.title, url: l.url });
  return buttons;
}

/**
 * The messages the automation sends, in order, with `{username}` filled. In transition mode the
 * follower check, the opening button, the email question and the reminder are left out.
 */
export function buildMessagesPreview(a: AutomationEntity, username: string): MessagesPreviewDto {
  const steps: PreviewStepDto[] = [];
  const first = a.trigger === 'comment' ? 'private reply to the comment' : 'reply in the conversation';
  const full = !a.transition_mode;
  if (a.trigger === 'comment' && a.public_replies.length) {
    const options = a.public_replies.map((t) => fill(t, username));
    steps.push({ type: 'public_reply', when: 'public reply under the comment, one option picked at random', text: options[0], options });
  }
  const opening = effectiveOpeningButton(a);
  if (opening) {
    steps.push({
      type: 'opening_dm',
      when: first,
      text: fill(a.opening_text, username),
      buttons: [{ type: 'postback', title: opening }],
    });
  }
  if (full && a.follow_gate) {
    steps.push({
      type: 'follow_gate',
      when: 'after the tap, when the person does not follow the account (repeated on every tap until they follow)',
      text: fill(a.gate_text, username),
      buttons: [{ type: 'postback', title: a.gate_button }],
    });
  }
  if (full && a.email_gate) {
    steps.push({
      type: 'email_question',
      when: a.email_skip_if_known ? 'before the link, unless the contact has an email stored' : 'before the link',
      text: fill(a.email_text, username),
    });
    steps.push({
      type: 'email_retry',
      when: 'once, when the answer holds no email; after a second miss the link goes out anyway',
      text: fill(a.email_retry_text, username),
    });
  }
  const buttons = linkButtons(a);
  if (buttons.length) {
    steps.push({
      type: 'link_dm',
      when: opening || (full && (a.follow_gate || a.email_gate)) ? 'after the previous step' : `${first} (first DM)`,
      text: fill(a.link_text, username),
      buttons,
      tracked: a.track_clicks,
    });
  }
  if (full && a.follow_up_minutes > 0 && a.follow_up_text && buttons.length) {
    steps.push({
      type: 'follow_up',
      when: `once, ${a.follow_up_minutes} minutes after the link when there was no click, only inside the 24-hour messaging window`,
      text: fill(a.follow_up_text, username),
      buttons,
      after_minutes: a.follow_up_minutes,
    });
  }
  if (a.tags.length) steps.push({ type: 'tags', when: 'when the run starts', items: a.tags });
  if (a.webhook_url) {
    steps.push({
      type: 'webhook',
      when: 'POST to the customer webhook',
      url: a.webhook_url,
      items: a.email_gate ? ['email_captured', 'link_sent'] : ['link_sent'],
    });
  }
  return { username, steps };
}

function scopesOverlap(a: AutomationEntity, b: AutomationEntity): boolean {
  if (a.trigger !== b.trigger) return false;
  if (a.trigger !== 'comment') return true;
  const all = (x: AutomationEntity) => !x.next_post && (!x.media_ids || x.media_ids.length === 0);
  if (all(a) || all(b)) return true;
  if (a.next_post || b.next_post) return a.next_post && b.next_post;
  return (a.media_ids ?? []).some((id) => (b.media_ids ?? []).includes(id));
}

/** Hints about the configuration (AutomationResult.notes). `others`: the account's other automations. */
export function configurationNotes(a: AutomationEntity, others: AutomationEntity[]): string[] {
  const notes: string[] = [];
  if (a.status === 'draft') notes.push(`Status draft: the automation answers nothing until POST /api/v1/automations/${a.id}/go_live.`);
  if (a.match_mode !== 'any' && a.keywords.length === 0) {
    notes.push('No keywords: the automation never triggers. Add keywords or set match_mode to "any".');
  }
  const hasLink = Boolean(a.link_url) || a.extra_links.length > 0;
  if (a.follow_gate && !hasLink) notes.push('follow_gate is on but link_url is empty: followers pass the gate and receive no link. Set link_url.');
  if (a.email_gate && !a.once_per_user) {
    notes.push('email_gate with once_per_user off: the same person is asked for the email every time they trigger it. Turn once_per_user on.');
  }
  const followUp = a.follow_up_minutes > 0 || Boolean(a.follow_up_text);
  if (followUp && !a.link_url) notes.push('Follow-up without link_url: the reminder re-sends the link, so it is never sent. Set link_url.');
  if (a.follow_up_minutes > 0 && !a.follow_up_text) notes.push('follow_up_minutes is set but follow_up_text is empty: no reminder is sent.');
  if (a.follow_up_text && a.follow_up_minutes === 0) notes.push('follow_up_text is set but follow_up_minutes is 0 (off): no reminder is sent.');
  if (a.follow_up_minutes > 0 && a.follow_up_text && a.link_url && !a.opening_button && !a.follow_gate && !a.email_gate) {
    notes.push(
      'The link goes out in the first DM (no opening_button), so the 24-hour messaging window never opens and the reminder cannot be sent. Set opening_button.',
    );
  }
  if (a.next_post) {
    if (!a.reel_caption && !a.reel_publish_at) {
      notes.push('next_post without reel_caption or reel_publish_at: the automation attaches to the first new reel, whatever it is. Set reel_caption or reel_publish_at.');
    } else if (!a.reel_caption) {
      notes.push('next_post without reel_caption: any reel going online in the publish window matches.');
    } else if (!a.reel_publish_at) {
      notes.push('next_post without reel_publish_at: the first new reel whose caption matches within 24 hours attaches.');
    }
  }
  if (a.webhook_secret && !a.webhook_url) notes.push('webhook_secret is set but webhook_url is empty: no webhook is sent.');
  if (a.transition_mode) notes.push('Transition mode: runs without follower check, button, email and reminder until POST /api/v1/automations/' + a.id + '/finish_migration.');
  for (const other of others) {
    if (other.id === a.id || !isLive(other) || !scopesOverlap(a, other)) continue;
    const shared = overlappingKeywords(a, other);
    if (shared.length === 0) continue;
    notes.push(
      `Keywords overlap with active automation "${other.name}" (#${other.id}): ${shared.join(', ')}. ` +
        'The higher priority wins; on equal priority the more specific match_mode (exact, word, contains, any), then the older automation.',
    );
  }
  return notes;
}
