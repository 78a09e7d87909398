import type { RunStamp, RunState } from '../runs/run';

/**
 * The run state machine: one person going through one automation. Pure (no I/O): given the run as
 * stored, the automation's settings and one input, it answers the next state, the step stamps to set
 * and the messages to send. The engine (engine.service.ts) performs the I/O around it: it looks up
 * the follow status when asked (`needs: 'follow_status'`), sends the messages (each recorded as an
 * intent first), and stores the result with an optimistic check on the state it started from.
 *
 *   started ─comment/dm─▶ (skip_if_answered: skipped_other_tool)
 *           ─▶ public reply (comments) + first DM:
 *                opening text + postback button ──▶ awaiting_tap
 *                email question (no button, email gate) ──▶ awaiting_email
 *                link (no button, no follow gate; or transition mode) ──▶ link_sent / done
 *   awaiting_tap / gated ─tap─▶ follow check (follow_gate): no ──▶ gated (gate text + button)
 *                                           yes or unknown (null) ──▶ email gate or link
 *   awaiting_email ─text─▶ email found ──▶ link; no email: first miss ──▶ retry text; second ──▶ link
 *   link_sent ─follow-up due─▶ reminder (inside the 24-hour window, no click) ──▶ done
 *   awaiting_tap ─opening DM read, no tap within the wait (messaging_seen)─▶ email gate or link
 *   link_sent / done ─tap on the old opening button─▶ the link again (the person asks for it;
 *                      a tap within a minute of the link is a double tap and changes nothing)
 *
 * Unknown follow status (`null`: the platform did not say) lets the person through, as the
 * platform's consent rules make a false "not following" likely; the choice is documented in README.
 */

export interface MachineAutomation {
  trigger: 'comment' | 'dm' | 'story_reply';
  public_replies: readonly string[];
  opening_text: string;
  opening_button: string | null;
  follow_gate: boolean;
  gate_text: string;
  gate_button: string;
  link_url: string | null;
  link_text: string;
  link_button: string;
  extra_links: ReadonlyArray<{ title: string; url: string }>;
  follow_up_text: string | null;
  follow_up_minutes: number;
  email_gate: boolean;
  email_text: string;
  email_retry_text: string;
  email_skip_if_known: boolean;
  transition_mode: boolean;
}

export interface MachineRun {
  id: string;
  state: RunState;
  username: string | null;
  trigger: 'comment' | 'dm' | 'story_reply' | string;
  comment_id: string | null;
  /** Parent of the trigger comment when it is itself a reply (public replies go there). */
  parent_comment_id?: string | null;
  transition: boolean;
  button_tapped_at: Date | null;
  gated_at: Date | null;
  gate_passed_at: Date | null;
  email_asked_at: Date | null;
  email_retry_at: Date | null;
  link_sent_at: Date | null;
  clicked_at: Date | null;
  followed_up_at: Date | null;
  /** The link went out by the read-but-not-tapped fallback. */
  read_fallback_at?: Date | null;
}

export type MachineInput =
  | { type: 'start'; answeredByOther: boolean; knownEmail: string | null; random?: () => number }
  | { type: 'tap'; knownEmail: string | null; now?: Date }
  | { type: 'follow_status'; follows: boolean | null; knownEmail: string | null }
  | { type: 'text'; text: string }
  | { type: 'follow_up_due'; windowOpen: boolean }
  | { type: 'read_fallback'; knownEmail: string | null };

export type LinkButtonSpec = { title: string; url: string; index: number };

/** What to send. `to: 'comment'` is a private reply to the trigger comment; `person` a DM by id. */
export type MachineMessage =
  | { kind: 'public_reply'; step: string; commentId: string; text: string }
  | { kind: 'dm'; step: string; to: 'comment' | 'person'; text: string; postback?: { title: string; payload: string } }
  | { kind: 'dm'; step: string; to: 'comment' | 'person'; text: string; links: LinkButtonSpec[] };

export type MachineEffect = 'tags' | 'email_captured' | 'link_sent' | 'schedule_follow_up';

export interface MachineResult {
  state: RunState;
  /** Steps reached by this input (the engine stamps the ones not set yet). */
  stamps: RunStamp[];
  messages: MachineMessage[];
  effects: MachineEffect[];
  /** Captured email (lower case). */
  email?: string;
  /** Ask the engine for the follow status, then call again with `follow_status`. */
  needs?: 'follow_status';
  /** Event kinds to log besides the stamps (skips and ignored inputs). */
  notes: string[];
  /** Reason stored on the run when it ends skipped or failed. */
  error?: string;
}

const EMAIL = /[a-z0-9._%+-]+@[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}/i;

/** The first email address in a text, lower-cased, or null. */
export function extractEmail(text: string): string | null {
  const m = EMAIL.exec(text);
  return m ? m[0].toLowerCase() : null;
}

/** `{username}` → the handle (empty when unknown). */
export function fillUsername(text: string, username: string | null): string {
  return text.replace(/\{username\}/g, username ?? '');
}

/** Postback payloads carry the run id: `run:<id>:open` (opening button) or `run:<id>:gate` (gate button). */
export function postbackPayload(runId: string, button: 'open' | 'gate'): string {
  return `run:${runId}:${button}`;
}

export function parsePostbackPayload(payload: string | undefined | null): { runId: string; button: 'open' | 'gate' } | null {
  const m = /^run:(\d{1,19}):(open|gate)$/.exec(payload ?? '');
  return m ? { runId: m[1], button: m[2] as 'open' | 'gate' } : null;
}

function linkButtons(a: MachineAutomation): LinkButtonSpec[] {
  const out: LinkButtonSpec[] = [];
  if (a.link_url) out.push({ title: a.link_button, url: a.link_url, index: 0 });
  a.extra_links.slice(0, 2).forEach((l, i) => out.push({ title: l.title, url: l.url, index: i + 1 }));
  return out;
}

function result(state: RunState, partial: Partial<MachineResult> = {}): MachineResult {
  return { state, stamps: [], messages: [], effects: [], notes: [], ...partial };
}

/** Whether the run skips the follower check, button, email and reminder (transition mode). */
function light(run: MachineRun, a: MachineAutomation): boolean {
  return run.transition || a.transition_mode;
}

function emailNeeded(run: MachineRun, a: MachineAutomation, knownEmail: string | null): boolean {
  if (!a.email_gate || light(run, a)) return false;
  return !(a.email_skip_if_known && knownEmail);
}

/** The link DM (and what goes with it). */
function sendLink(run: MachineRun, a: MachineAutomation, to: 'comment' | 'person', step: string, extra: Partial<MachineResult> = {}): MachineResult {
  const reminder = !light(run, a) && a.follow_up_minutes > 0 && Boolean(a.follow_up_text) && run.followed_up_at === null;
  return result(reminder ? 'link_sent' : 'done', {
    ...extra,
    stamps: [...(extra.stamps ?? []), 'link_sent_at'],
    messages: [...(extra.messages ?? []), { kind: 'dm', step, to, text: fillUsername(a.link_text, run.username), links: linkButtons(a) }],
    effects: [...(extra.effects ?? []), 'link_sent', ...(reminder ? (['schedule_follow_up'] as const) : [])],
  });
}

/** After the button (and the follow gate): the email question or the link. */
function afterGate(run: MachineRun, a: MachineAutomation, knownEmail: string | null, extra: Partial<MachineResult>): MachineResult {
  if (emailNeeded(run, a, knownEmail)) {
    return result('awaiting_email', {
      ...extra,
      stamps: [...(extra.stamps ?? []), 'email_asked_at'],
      messages: [...(extra.messages ?? []), { kind: 'dm', step: 'email_ask', to: 'person', text: fillUsername(a.email_text, run.username) }],
    });
  }
  return sendLink(run, a, 'person', 'link', extra);
}

export function transition(run: MachineRun, a: MachineAutomation, input: MachineInput): MachineResult {
  switch (input.type) {
    case 'start':
      return start(run, a, input);
    case 'tap':
      return tap(run, a, input.knownEmail, input.now ?? new Date());
    case 'follow_status':
      return followStatus(run, a, input.follows, input.knownEmail);
    case 'text':
      return text(run, a, input.text);
    case 'follow_up_due':
      return followUp(run, a, input.windowOpen);
    case 'read_fallback':
      return readFallback(run, a, input.knownEmail);
  }
}

function start(run: MachineRun, a: MachineAutomation, input: Extract<MachineInput, { type: 'start' }>): MachineResult {
  if (run.state !== 'started') return result(run.state, { notes: ['ignored'] });
  const isComment = run.trigger === 'comment' && run.comment_id !== null;
  if (isComment && input.answeredByOther) return result('skipped_other_tool', { notes: ['skipped_other_tool'] });

  const messages: MachineMessage[] = [];
  const stamps: RunStamp[] = [];
  if (isComment && a.public_replies.length > 0) {
    const pick = a.public_replies[Math.min(a.public_replies.length - 1, Math.floor((input.random ?? Math.random)() * a.public_replies.length))];
    messages.push({ kind: 'public_reply', step: 'public_reply', commentId: run.parent_comment_id || run.comment_id!, text: fillUsername(pick, run.username) });
    stamps.push('public_reply_sent_at');
  }
  const to = isComment ? 'comment' : 'person';
  const base: Partial<MachineResult> = { stamps: [...stamps, 'dm_sent_at'], messages, effects: ['tags'] };

  if (!light(run, a) && (a.opening_button || a.follow_gate)) {
    const title = a.opening_button ?? 'Send link';
    return result('awaiting_tap', {
      ...base,
      messages: [
        ...messages,
        { kind: 'dm', step: 'opening', to, text: fillUsername(a.opening_text, run.username), postback: { title, payload: postbackPayload(run.id, 'open') } },
      ],
    });
  }
  if (emailNeeded(run, a, input.knownEmail)) {
    return result('awaiting_email', {
      ...base,
      stamps: [...(base.stamps ?? []), 'email_asked_at'],
      messages: [...messages, { kind: 'dm', step: 'email_ask', to, text: fillUsername(a.email_text, run.username) }],
    });
  }
  return sendLink(run, a, to, 'link', base);
}

/** A tap on the opening button this soon after the link is a double tap, not a request for the link again. */
export const LINK_RESEND_AFTER_MS = 60_000;

function tap(run: MachineRun, a: MachineAutomation, knownEmail: string | null, now: Date): MachineResult {
  const firstTap: RunStamp[] = run.button_tapped_at ? [] : ['button_tapped_at'];
  if (run.state === 'awaiting_tap' || run.state === 'gated') {
    if (a.follow_gate && !light(run, a)) return result(run.state, { stamps: firstTap, needs: 'follow_status' });
    return afterGate(run, a, knownEmail, { stamps: firstTap });
  }
  if ((run.state === 'link_sent' || run.state === 'done') && run.link_sent_at) {
    if (now.getTime() - new Date(run.link_sent_at).getTime() < LINK_RESEND_AFTER_MS) return result(run.state, { stamps: firstTap, notes: ['ignored'] });
    // The person tapped the old opening button again: they ask for the link once more.
    const again = sendLink(run, a, 'person', 'link_again', {});
    return { ...again, state: run.state, stamps: firstTap, effects: [], notes: ['link_resent'] };
  }
  return result(run.state, { stamps: firstTap, notes: ['ignored'] });
}

function followStatus(run: MachineRun, a: MachineAutomation, follows: boolean | null, knownEmail: string | null): MachineResult {
  const firstTap: RunStamp[] = run.button_tapped_at ? [] : ['button_tapped_at'];
  if (run.state !== 'awaiting_tap' && run.state !== 'gated') return result(run.state, { notes: ['ignored'] });
  if (follows === false) {
    return result('gated', {
      stamps: [...firstTap, ...(run.gated_at ? [] : (['gated_at'] as RunStamp[]))],
      messages: [
        { kind: 'dm', step: 'gate', to: 'person', text: fillUsername(a.gate_text, run.username), postback: { title: a.gate_button, payload: postbackPayload(run.id, 'gate') } },
      ],
    });
  }
  return afterGate(run, a, knownEmail, { stamps: [...firstTap, 'gate_passed_at'], notes: follows === null ? ['follow_status_unknown'] : [] });
}

function text(run: MachineRun, a: MachineAutomation, body: string): MachineResult {
  if (run.state !== 'awaiting_email') return result(run.state, { notes: ['ignored'] });
  const email = extractEmail(body);
  if (email) return sendLink(run, a, 'person', 'link', { stamps: ['email_captured_at'], effects: ['email_captured'], email });
  if (!run.email_retry_at) {
    return result('awaiting_email', {
      stamps: ['email_retry_at'],
      messages: [{ kind: 'dm', step: 'email_retry', to: 'person', text: fillUsername(a.email_retry_text, run.username) }],
    });
  }
  return sendLink(run, a, 'person', 'link', { stamps: ['email_expired_at'] });
}

/**
 * The person read the opening DM and did not tap its button within the configured wait: what the tap
 * would have given, with the follow status unknown (let through, as for a null answer) — the email
 * question or the link. Only while the run still waits for that tap, once.
 */
function readFallback(run: MachineRun, a: MachineAutomation, knownEmail: string | null): MachineResult {
  if (run.state !== 'awaiting_tap' || run.button_tapped_at || run.read_fallback_at) return result(run.state, { notes: ['ignored'] });
  return afterGate(run, a, knownEmail, { stamps: ['read_fallback_at'] });
}

function followUp(run: MachineRun, a: MachineAutomation, windowOpen: boolean): MachineResult {
  if (run.state !== 'link_sent' || run.followed_up_at) return result(run.state, { notes: ['ignored'] });
  if (run.clicked_at) return result('done', { notes: ['follow_up_not_needed'] });
  if (!windowOpen || !a.follow_up_text) return result('done', { notes: ['follow_up_outside_window'] });
  return result('done', {
    stamps: ['followed_up_at'],
    messages: [{ kind: 'dm', step: 'follow_up', to: 'person', text: fillUsername(a.follow_up_text, run.username), links: linkButtons(a) }],
  });
}
