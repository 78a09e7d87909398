import { extractEmail, fillUsername, parsePostbackPayload, postbackPayload, transition, type MachineAutomation, type MachineRun } from './run-machine';

const automation = (over: Partial<MachineAutomation> = {}): MachineAutomation => ({
  trigger: 'comment',
  public_replies: [],
  opening_text: 'Hey {username}!',
  opening_button: null,
  follow_gate: false,
  gate_text: 'Follow first',
  gate_button: 'I follow you now',
  link_url: 'https://example.com/l',
  link_text: 'Here {username}',
  link_button: 'Open',
  extra_links: [],
  follow_up_text: null,
  follow_up_minutes: 0,
  email_gate: false,
  email_text: 'Email?',
  email_retry_text: 'Email again?',
  email_skip_if_known: true,
  transition_mode: false,
  ...over,
});

const run = (over: Partial<MachineRun> = {}): MachineRun => ({
  id: '42',
  state: 'started',
  username: 'ann',
  trigger: 'comment',
  comment_id: 'c1',
  parent_comment_id: null,
  transition: false,
  button_tapped_at: null,
  gated_at: null,
  gate_passed_at: null,
  email_asked_at: null,
  email_retry_at: null,
  link_sent_at: null,
  clicked_at: null,
  followed_up_at: null,
  ...over,
});

const at = new Date('2026-01-01T00:00:00Z');
const start = (answeredByOther = false, knownEmail: string | null = null) => ({ type: 'start' as const, answeredByOther, knownEmail, random: () => 0.99 });

describe('run state machine', () => {
  describe('start', () => {
    it('comment without button or gate: private reply with the link right away', () => {
      const r = transition(run(), automation(), start());
      expect(r.state).toBe('done');
      expect(r.stamps).toEqual(['dm_sent_at', 'link_sent_at']);
      expect(r.messages).toEqual([{ kind: 'dm', step: 'link', to: 'comment', text: 'Here ann', links: [{ title: 'Open', url: 'https://example.com/l', index: 0 }] }]);
      expect(r.effects).toEqual(['tags', 'link_sent']);
    });

    it('public reply: a random pick with {username}, under the parent when the comment is a reply', () => {
      const r = transition(run({ parent_comment_id: 'p1' }), automation({ public_replies: ['a {username}', 'b {username}'] }), start());
      expect(r.messages[0]).toEqual({ kind: 'public_reply', step: 'public_reply', commentId: 'p1', text: 'b ann' });
      expect(r.stamps).toContain('public_reply_sent_at');
      const top = transition(run(), automation({ public_replies: ['x'] }), start());
      expect(top.messages[0]).toMatchObject({ commentId: 'c1' });
    });

    it('opening button: first DM with a postback carrying the run id, then awaiting_tap', () => {
      const r = transition(run(), automation({ opening_button: 'Send it' }), start());
      expect(r.state).toBe('awaiting_tap');
      expect(r.messages).toEqual([{ kind: 'dm', step: 'opening', to: 'comment', text: 'Hey ann!', postback: { title: 'Send it', payload: 'run:42:open' } }]);
    });

    it('follow gate without a button title still sends an opening button (the tap gives consent)', () => {
      expect(transition(run(), automation({ follow_gate: true }), start()).messages[0]).toMatchObject({ postback: { title: 'Send link' } });
    });

    it('email gate without button: the email question is the first DM', () => {
      const r = transition(run(), automation({ email_gate: true }), start());
      expect(r.state).toBe('awaiting_email');
      expect(r.messages).toEqual([{ kind: 'dm', step: 'email_ask', to: 'comment', text: 'Email?' }]);
      expect(r.stamps).toEqual(['dm_sent_at', 'email_asked_at']);
    });

    it('email gate skipped for a known email (email_skip_if_known), asked when the flag is off', () => {
      expect(transition(run(), automation({ email_gate: true }), start(false, 'a@b.co')).state).toBe('done');
      expect(transition(run(), automation({ email_gate: true, email_skip_if_known: false }), start(false, 'a@b.co')).state).toBe('awaiting_email');
    });

    it('skip_if_answered: answered by another tool → skipped_other_tool, nothing sent', () => {
      const r = transition(run(), automation({ public_replies: ['x'] }), start(true));
      expect(r).toMatchObject({ state: 'skipped_other_tool', messages: [], stamps: [] });
    });

    it('DM triggers send to the person and never a public reply', () => {
      const r = transition(run({ trigger: 'dm', comment_id: null }), automation({ trigger: 'dm', public_replies: ['x'] }), start(true));
      expect(r.messages).toHaveLength(1);
      expect(r.messages[0]).toMatchObject({ to: 'person', step: 'link' });
    });

    it('transition mode: no button, gate, email or reminder', () => {
      const a = automation({ transition_mode: true, follow_gate: true, opening_button: 'Go', email_gate: true, follow_up_minutes: 10, follow_up_text: 'hey' });
      const r = transition(run(), a, start());
      expect(r.state).toBe('done');
      expect(r.effects).not.toContain('schedule_follow_up');
      expect(transition(run({ transition: true }), automation({ follow_gate: true }), start()).state).toBe('done');
    });

    it('a second start is ignored', () => {
      expect(transition(run({ state: 'awaiting_tap' }), automation(), start())).toMatchObject({ state: 'awaiting_tap', messages: [] });
    });

    it('link with extra links: up to 3 buttons in order; reminder scheduled when configured', () => {
      const r = transition(run(), automation({ extra_links: [{ title: 'A', url: 'https://a' }, { title: 'B', url: 'https://b' }], follow_up_minutes: 5, follow_up_text: 'hi' }), start());
      expect(r.state).toBe('link_sent');
      expect(r.effects).toContain('schedule_follow_up');
      expect((r.messages[0] as { links: unknown[] }).links).toEqual([
        { title: 'Open', url: 'https://example.com/l', index: 0 },
        { title: 'A', url: 'https://a', index: 1 },
        { title: 'B', url: 'https://b', index: 2 },
      ]);
    });
  });

  describe('tap and follow gate', () => {
    const gated = automation({ follow_gate: true, opening_button: 'Send link' });

    it('a tap with the follow gate asks for the follow status first', () => {
      expect(transition(run({ state: 'awaiting_tap' }), gated, { type: 'tap', knownEmail: null })).toMatchObject({ needs: 'follow_status', stamps: ['button_tapped_at'], messages: [] });
    });

    it('not following → gated with the gate button; gated stamp once', () => {
      const r = transition(run({ state: 'awaiting_tap' }), gated, { type: 'follow_status', follows: false, knownEmail: null });
      expect(r.state).toBe('gated');
      expect(r.messages).toEqual([{ kind: 'dm', step: 'gate', to: 'person', text: 'Follow first', postback: { title: 'I follow you now', payload: 'run:42:gate' } }]);
      expect(r.stamps).toEqual(['button_tapped_at', 'gated_at']);
      const again = transition(run({ state: 'gated', button_tapped_at: at, gated_at: at }), gated, { type: 'follow_status', follows: false, knownEmail: null });
      expect(again.stamps).toEqual([]);
      expect(again.messages).toHaveLength(1);
    });

    it('following → gate passed and the link; unknown (null) lets the person through', () => {
      for (const follows of [true, null]) {
        const r = transition(run({ state: 'gated', button_tapped_at: at, gated_at: at }), gated, { type: 'follow_status', follows, knownEmail: null });
        expect(r.state).toBe('done');
        expect(r.stamps).toEqual(['gate_passed_at', 'link_sent_at']);
        expect(r.messages[0]).toMatchObject({ step: 'link', to: 'person' });
      }
    });

    it('passing the gate with the email gate asks for the email', () => {
      const r = transition(run({ state: 'awaiting_tap' }), automation({ follow_gate: true, email_gate: true }), { type: 'follow_status', follows: true, knownEmail: null });
      expect(r).toMatchObject({ state: 'awaiting_email', stamps: ['button_tapped_at', 'gate_passed_at', 'email_asked_at'] });
    });

    it('a tap without the follow gate goes straight on', () => {
      expect(transition(run({ state: 'awaiting_tap' }), automation({ opening_button: 'Go' }), { type: 'tap', knownEmail: null })).toMatchObject({ state: 'done', stamps: ['button_tapped_at', 'link_sent_at'] });
    });

    it('a tap after the link resends the link without new counters; other states ignore taps', () => {
      const later = new Date(at.getTime() + 61_000);
      const doubleTap = transition(run({ state: 'done', button_tapped_at: at, link_sent_at: at }), automation({ opening_button: 'Go' }), { type: 'tap', knownEmail: null, now: new Date(at.getTime() + 5_000) });
      expect(doubleTap).toMatchObject({ state: 'done', messages: [], notes: ['ignored'] });
      const r = transition(run({ state: 'done', button_tapped_at: at, link_sent_at: at }), automation({ opening_button: 'Go' }), { type: 'tap', knownEmail: null, now: later });
      expect(r).toMatchObject({ state: 'done', stamps: [], effects: [], notes: ['link_resent'] });
      expect(r.messages[0]).toMatchObject({ step: 'link_again' });
      expect(transition(run({ state: 'awaiting_email' }), automation(), { type: 'tap', knownEmail: null }).messages).toEqual([]);
      expect(transition(run({ state: 'skipped_other_tool' }), automation(), { type: 'tap', knownEmail: null }).notes).toEqual(['ignored']);
    });
  });

  describe('email gate', () => {
    const a = automation({ email_gate: true });
    const waiting = run({ state: 'awaiting_email', email_asked_at: at });

    it('an email → captured (lower case) and the link', () => {
      const r = transition(waiting, a, { type: 'text', text: 'it is Ann.Smith+x@Mail.Example.COM thanks' });
      expect(r).toMatchObject({ state: 'done', email: 'ann.smith+x@mail.example.com', stamps: ['email_captured_at', 'link_sent_at'], effects: ['email_captured', 'link_sent'] });
    });

    it('first miss → retry text once; second miss → the link anyway (email_expired)', () => {
      const first = transition(waiting, a, { type: 'text', text: 'huh?' });
      expect(first).toMatchObject({ state: 'awaiting_email', stamps: ['email_retry_at'], messages: [{ text: 'Email again?' }] });
      const second = transition(run({ state: 'awaiting_email', email_asked_at: at, email_retry_at: at }), a, { type: 'text', text: 'nope' });
      expect(second).toMatchObject({ state: 'done', stamps: ['email_expired_at', 'link_sent_at'] });
      expect(second.effects).toEqual(['link_sent']);
    });

    it('texts outside awaiting_email are ignored', () => {
      expect(transition(run({ state: 'awaiting_tap' }), a, { type: 'text', text: 'a@b.co' })).toMatchObject({ state: 'awaiting_tap', notes: ['ignored'] });
    });
  });

  describe('reminder', () => {
    const a = automation({ follow_up_minutes: 30, follow_up_text: 'Still there {username}?' });
    const sent = run({ state: 'link_sent', link_sent_at: at });

    it('sent once inside the window with the link buttons', () => {
      const r = transition(sent, a, { type: 'follow_up_due', windowOpen: true });
      expect(r).toMatchObject({ state: 'done', stamps: ['followed_up_at'] });
      expect(r.messages).toEqual([{ kind: 'dm', step: 'follow_up', to: 'person', text: 'Still there ann?', links: [{ title: 'Open', url: 'https://example.com/l', index: 0 }] }]);
      expect(transition(run({ state: 'done', followed_up_at: at }), a, { type: 'follow_up_due', windowOpen: true }).messages).toEqual([]);
    });

    it('not sent outside the window or after a click', () => {
      expect(transition(sent, a, { type: 'follow_up_due', windowOpen: false })).toMatchObject({ state: 'done', messages: [], notes: ['follow_up_outside_window'] });
      expect(transition(run({ state: 'link_sent', link_sent_at: at, clicked_at: at }), a, { type: 'follow_up_due', windowOpen: true })).toMatchObject({ state: 'done', messages: [], notes: ['follow_up_not_needed'] });
    });
  });

  describe('helpers', () => {
    it.each([
      ['mail me at a@b.co', 'a@b.co'],
      ['X.Y@Sub.Domain.ORG.', 'x.y@sub.domain.org'],
      ['no email here', null],
      ['half@', null],
      ['@twitter', null],
      ['a@b', null],
    ])('extractEmail(%s)', (text, email) => {
      expect(extractEmail(text)).toBe(email);
    });

    it('fills {username} everywhere and leaves other braces', () => {
      expect(fillUsername('{username} and {username} {other}', 'zoe')).toBe('zoe and zoe {other}');
      expect(fillUsername('hi {username}', null)).toBe('hi ');
    });

    it('postback payloads round-trip and refuse anything else', () => {
      expect(parsePostbackPayload(postbackPayload('123', 'gate'))).toEqual({ runId: '123', button: 'gate' });
      expect(parsePostbackPayload('run:abc:open')).toBeNull();
      expect(parsePostbackPayload('run:1:other')).toBeNull();
      expect(parsePostbackPayload(undefined)).toBeNull();
    });
  });

  describe('read but not tapped (read_fallback)', () => {
    const waiting = run({ state: 'awaiting_tap', trigger: 'dm', comment_id: null });
    it('a run still waiting for the tap gets the link (follow gate let through), stamped read_fallback_at', () => {
      const r = transition(waiting, automation({ opening_button: 'Send', follow_gate: true }), { type: 'read_fallback', knownEmail: null });
      expect(r.state).toBe('done');
      expect(r.stamps).toEqual(['read_fallback_at', 'link_sent_at']);
      expect(r.messages).toEqual([expect.objectContaining({ kind: 'dm', step: 'link', to: 'person' })]);
    });
    it('the email gate still asks first', () => {
      const r = transition(waiting, automation({ opening_button: 'Send', email_gate: true }), { type: 'read_fallback', knownEmail: null });
      expect(r).toMatchObject({ state: 'awaiting_email', stamps: ['read_fallback_at', 'email_asked_at'] });
    });
    it.each([
      ['tapped', { button_tapped_at: new Date() }],
      ['already sent', { read_fallback_at: new Date() }],
      ['gated', { state: 'gated' as const }],
      ['done', { state: 'done' as const }],
    ])('%s: nothing', (_name, over) => {
      const r = transition({ ...waiting, ...over }, automation({ opening_button: 'Send' }), { type: 'read_fallback', knownEmail: null });
      expect(r.messages).toEqual([]);
      expect(r.notes).toEqual(['ignored']);
    });
  });
});
