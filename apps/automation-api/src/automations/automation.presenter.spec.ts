import { AUTOMATION_DEFAULTS } from './automation.defaults';
import { buildMessagesPreview, configurationNotes, postsOf, sqlUtc, toAutomationDto } from './automation.presenter';
import { funnelOf } from './automations.service';
import type { AutomationEntity } from './entities/automation.entity';
import { automationMissing, toCommentDto, toPostDto } from '../posts/posts.service';

let nextId = 1;
function automation(over: Partial<AutomationEntity> = {}): AutomationEntity {
  const now = new Date('2026-11-21T10:20:30.456Z');
  return {
    ...(AUTOMATION_DEFAULTS as unknown as AutomationEntity),
    id: nextId++,
    account_id: 1,
    status: 'draft',
    pending_next: false,
    reel_status: null,
    reel_media_id: null,
    reel_attached_at: null,
    reel_expired_at: null,
    reel_suggestion: null,
    transition_mode: false,
    origin: null,
    imported_from: null,
    went_live_at: null,
    created_at: now,
    updated_at: now,
    ...over,
  } as AutomationEntity;
}

describe('automation presenter', () => {
  it('masks the webhook secret and formats the summary time', () => {
    expect(toAutomationDto(automation({ webhook_secret: 'x' })).webhook_secret).toBe('***');
    expect(toAutomationDto(automation()).webhook_secret).toBe('***');
    expect(sqlUtc(new Date('2026-01-02T03:04:05.678Z'))).toBe('2026-01-02 03:04:05');
  });

  it('describes the posts an automation covers', () => {
    expect(postsOf(automation())).toBe('all');
    expect(postsOf(automation({ media_ids: ['1', '2'] }))).toEqual(['1', '2']);
    expect(postsOf(automation({ next_post: true, reel_status: 'waiting' }))).toBe('next post (waiting)');
    expect(postsOf(automation({ next_post: true, reel_status: 'expired' }))).toBe('next post (expired)');
    expect(postsOf(automation({ next_post: true, reel_status: 'attached', reel_media_id: '9' }))).toEqual(['9']);
    expect(postsOf(automation({ trigger: 'dm' }))).toBe('all');
  });

  it('previews the link in the first DM when there is no opening button', () => {
    const steps = buildMessagesPreview(automation({ link_url: 'https://e.com', link_text: 'For {username}' }), 'ann').steps;
    expect(steps).toEqual([
      expect.objectContaining({ type: 'link_dm', text: 'For ann', when: expect.stringContaining('first DM'), tracked: true }),
    ]);
  });

  it('previews the email gate and the reminder', () => {
    const steps = buildMessagesPreview(
      automation({ link_url: 'https://e.com', opening_button: 'Go', email_gate: true, follow_up_minutes: 30, follow_up_text: 'Hey {username}' }),
      'bo',
    ).steps;
    expect(steps.map((s) => s.type)).toEqual(['opening_dm', 'email_question', 'email_retry', 'link_dm', 'follow_up']);
    expect(steps[4]).toMatchObject({ text: 'Hey bo', after_minutes: 30 });
  });

  it('warns that a reminder cannot go out when the link is the first DM', () => {
    const notes = configurationNotes(automation({ keywords: ['a'], link_url: 'https://e.com', follow_up_minutes: 10, follow_up_text: 'x' }), []);
    expect(notes.some((n) => n.includes('window never opens'))).toBe(true);
  });

  it('reports overlapping keywords only with live automations on overlapping posts', () => {
    const mine = automation({ keywords: ['deal'], media_ids: ['1'] });
    const liveSamePost = automation({ name: 'Same', keywords: ['DEAL'], status: 'active', media_ids: ['1'] });
    const liveOtherPost = automation({ name: 'Other', keywords: ['deal'], status: 'active', media_ids: ['2'] });
    const draft = automation({ name: 'Draft', keywords: ['deal'] });
    const dm = automation({ name: 'Dm', keywords: ['deal'], status: 'active', trigger: 'dm' });
    const notes = configurationNotes(mine, [liveSamePost, liveOtherPost, draft, dm]).filter((n) => n.includes('overlap'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('"Same"');
  });

  it('funnel counters are null for steps the automation does not have', () => {
    const f = funnelOf(automation({ link_url: 'https://e.com' }), undefined);
    expect(f).toMatchObject({ triggered: 0, dm_sent: 0, gated: null, email_asked: null, link_sent: 0, clicked: 0, followed_up: null, active: false });
    const withRuns = funnelOf(automation(), {
      triggered: 1, dm_sent: 1, button_tapped: 0, gated: 1, gate_passed: 0, email_asked: 0, email_captured: 0, email_expired: 0,
      link_sent: 0, clicked: 0, followed_up: 0, errors: 0, skipped: 0, skipped_other_tool: 0, read_fallback: 0, human_takeover: 0,
    });
    expect(withRuns.gated).toBe(1);
  });
});

describe('posts and comments mapping', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');
  const reel = (minutesOld: number) => ({
    id: 'r1',
    media_type: 'VIDEO',
    media_product_type: 'REELS',
    timestamp: new Date(now - minutesOld * 60_000).toISOString().replace('.000Z', '+0000'),
  });

  it('flags reels between 5 minutes and 24 hours old without a live automation', () => {
    expect(automationMissing(reel(4), [], now)).toBe(false);
    expect(automationMissing(reel(5), [], now)).toBe(true);
    expect(automationMissing(reel(24 * 60), [], now)).toBe(true);
    expect(automationMissing(reel(24 * 60 + 1), [], now)).toBe(false);
    expect(automationMissing(reel(10), [automation({ status: 'active' })], now)).toBe(false);
    expect(automationMissing(reel(10), [automation({ status: 'paused', active: false })], now)).toBe(true);
    expect(automationMissing(reel(10), [automation({ status: 'active', media_ids: ['other'] })], now)).toBe(true);
  });

  it('maps a post without caption and an image thumbnail', () => {
    const p = toPostDto({ id: 'i1', media_type: 'IMAGE', media_url: 'https://cdn/i.jpg', timestamp: '2026-11-21T10:00:00+0000' }, [], now);
    expect(p).toMatchObject({ type: 'image', caption: '', thumbnail: 'https://cdn/i.jpg', date: '2026-11-21T10:00:00.000Z', likes: 0, comments_count: 0 });
  });

  it('answered_by: the service, another tool, or nobody', () => {
    const c = { id: 'c1', text: 't', from: { id: 'u', username: 'ann' }, replies: { data: [{ id: 'r1', from: { id: 'acct' } }] } };
    expect(toCommentDto(c, 'acct', new Set(), new Set(['r1'])).answered_by).toBe('automation-api');
    expect(toCommentDto(c, 'acct', new Set(), new Set()).answered_by).toBe('other');
    expect(toCommentDto({ ...c, replies: { data: [] } }, 'acct', new Set(['c1']), new Set()).answered_by).toBe('automation-api');
    expect(toCommentDto({ ...c, replies: { data: [{ id: 'r2', from: { id: 'fan' } }] } }, 'acct', new Set(), new Set())).toMatchObject({
      answered: false,
      answered_by: null,
    });
  });
});
