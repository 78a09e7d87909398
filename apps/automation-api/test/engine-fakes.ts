import type { AccountEntity } from '../src/accounts/entities/account.entity';
import type { AutomationEntity } from '../src/automations/entities/automation.entity';
import type { InboundRow } from '../src/engine/inbound';
import type { RunRow } from '../src/runs/run';

/**
 * Fakes for the unit tests of the engine's use cases: rows with the fields the engine reads, and
 * `fake<T>()` objects whose methods are jest mocks (only the ones a test needs are given).
 */

export const NOW = new Date('2026-01-10T12:00:00Z');

export function fake<T>(methods: Record<string, unknown> = {}): T & Record<string, jest.Mock> {
  return methods as unknown as T & Record<string, jest.Mock>;
}

/** Transactions that run the callback at once and count how often a transaction was opened. */
export function fakeTransactions(): { opened: number; transaction: jest.Mock } {
  const t = {
    opened: 0,
    transaction: jest.fn(async (fn: () => Promise<unknown>) => {
      t.opened++;
      return fn();
    }),
  };
  return t;
}

export function fakeClock(now = NOW) {
  return { now: jest.fn(() => new Date(now)) };
}

export function anAccount(fields: Partial<AccountEntity> = {}): AccountEntity {
  return { id: 1, ig_user_id: '1780000000000001', public_base_url: 'https://automation.example.com', email_public_key: 'pk_1', access_token: 'token', ...fields } as AccountEntity;
}

export function anAutomation(fields: Partial<AutomationEntity> = {}): AutomationEntity {
  return {
    id: 7,
    account_id: 1,
    name: 'Guide',
    trigger: 'comment',
    status: 'active',
    active: true,
    keywords: ['guide'],
    match_mode: 'contains',
    exclude_keywords: [],
    media_ids: null,
    next_post: false,
    reel_status: null,
    reel_media_id: null,
    public_replies: [],
    opening_text: 'Here it is',
    opening_button: null,
    follow_gate: false,
    gate_text: 'Follow first',
    gate_button: 'I follow',
    link_url: 'https://example.com/guide',
    link_text: 'Your guide',
    link_button: 'Open',
    extra_links: [],
    follow_up_text: null,
    follow_up_minutes: 0,
    email_gate: false,
    email_text: 'Your email?',
    email_retry_text: 'Again?',
    email_skip_if_known: true,
    webhook_url: null,
    track_clicks: false,
    tags: ['lead'],
    once_per_user: false,
    priority: 0,
    skip_if_answered: false,
    transition_mode: false,
    ...fields,
  } as unknown as AutomationEntity;
}

export function aRun(fields: Partial<RunRow> = {}): RunRow {
  return {
    id: '42',
    account_id: 1,
    automation_id: 7,
    contact_ig_id: 'person-1',
    username: 'jane',
    trigger: 'comment',
    media_id: 'media-1',
    comment_id: 'comment-1',
    parent_comment_id: null,
    message_id: null,
    state: 'started',
    transition: false,
    version: 0,
    email: null,
    public_reply_sent_at: null,
    dm_sent_at: null,
    button_tapped_at: null,
    gated_at: null,
    gate_passed_at: null,
    email_asked_at: null,
    email_retry_at: null,
    email_captured_at: null,
    email_expired_at: null,
    link_sent_at: null,
    clicked_at: null,
    click_count: 0,
    followed_up_at: null,
    read_fallback_at: null,
    text_fallback: false,
    ...fields,
  };
}

export function anItem(fields: Partial<InboundRow> = {}): InboundRow {
  return { id: '100', account_id: 1, dedup_key: 'comment:comment-1', kind: 'comment', subject: '1:person-1', payload: {}, attempts: 0, applied_at: null, run_id: null, ...fields };
}
