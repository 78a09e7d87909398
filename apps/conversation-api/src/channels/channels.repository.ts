import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { EmailSettings, MailboxState } from './email-settings';

export interface Channel {
  id: string;
  accountId: string;
  type: 'whatsapp' | 'email';
  name: string;
  phoneNumber: string | null;
  /** WhatsApp channels only. */
  phoneNumberId: string | null;
  businessAccountId: string | null;
  /** Email channels only: the address, the servers and the mailbox's poll state. */
  email: { address: string; settings: EmailSettings; mailbox: MailboxState } | null;
  /** Sealed (AES-256-GCM) JSON of the provider credentials. */
  credentials: string;
  autoAssignment: boolean;
  assignmentCap: number | null;
  teamId: string | null;
  memberIds: string[];
  /** Webhook items for another phone number than this channel's, counted instead of stored. */
  ignored: { count: number; lastAt: Date | null; lastPhoneNumberId: string | null };
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: string;
  account_id: string;
  type: 'whatsapp' | 'email';
  name: string;
  phone_number: string | null;
  phone_number_id: string | null;
  email_address: string | null;
  email_settings: EmailSettings | null;
  imap_uidvalidity: string | null;
  imap_last_uid: string | null;
  imap_last_polled_at: Date | null;
  imap_last_error: string | null;
  mails_received: string;
  auto_replies_skipped: string;
  own_mails_skipped: string;
  business_account_id: string | null;
  credentials: string;
  auto_assignment: boolean;
  assignment_cap: number | null;
  team_id: string | null;
  member_ids: string[];
  ignored_items: string;
  last_ignored_at: Date | null;
  last_ignored_phone_number_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const toChannel = (r: Row): Channel => ({
  id: r.id,
  accountId: r.account_id,
  type: r.type,
  name: r.name,
  phoneNumber: r.phone_number,
  phoneNumberId: r.phone_number_id,
  businessAccountId: r.business_account_id,
  email:
    r.type === 'email' && r.email_address && r.email_settings
      ? {
          address: r.email_address,
          settings: r.email_settings,
          mailbox: {
            uidValidity: r.imap_uidvalidity === null ? null : Number(r.imap_uidvalidity),
            lastUid: r.imap_last_uid === null ? null : Number(r.imap_last_uid),
            lastPolledAt: r.imap_last_polled_at,
            lastError: r.imap_last_error,
            received: Number(r.mails_received),
            autoRepliesSkipped: Number(r.auto_replies_skipped),
            ownMailsSkipped: Number(r.own_mails_skipped),
          },
        }
      : null,
  credentials: r.credentials,
  autoAssignment: r.auto_assignment,
  assignmentCap: r.assignment_cap,
  teamId: r.team_id,
  memberIds: r.member_ids,
  ignored: { count: Number(r.ignored_items), lastAt: r.last_ignored_at, lastPhoneNumberId: r.last_ignored_phone_number_id },
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class ChannelsRepository {
  /** channel id → account id; a channel never changes account. */
  private readonly accountCache = new Map<string, string>();

  constructor(private readonly db: Database) {}

  private select(where: string): string {
    return `SELECT c.*, COALESCE(array_agg(m.user_id ORDER BY m.user_id) FILTER (WHERE m.user_id IS NOT NULL), '{}') AS member_ids
              FROM ${this.db.table('channels')} c LEFT JOIN ${this.db.table('channel_members')} m ON m.channel_id = c.id
             WHERE ${where} GROUP BY c.id`;
  }

  async list(accountId: string): Promise<Channel[]> {
    return (await this.db.rows<Row>(`${this.select('c.account_id = $1')} ORDER BY c.created_at`, [accountId])).map(toChannel);
  }

  /** The account's channels the user is a member of. */
  async listOfMember(accountId: string, userId: string): Promise<Channel[]> {
    const where = `c.account_id = $1 AND EXISTS (SELECT 1 FROM ${this.db.table('channel_members')} x WHERE x.channel_id = c.id AND x.user_id = $2)`;
    return (await this.db.rows<Row>(`${this.select(where)} ORDER BY c.created_at`, [accountId, userId])).map(toChannel);
  }

  /** The ids of the account's channels the user is a member of. */
  async memberChannelIds(accountId: string, userId: string): Promise<string[]> {
    const rows = await this.db.rows<{ channel_id: string }>(
      `SELECT m.channel_id FROM ${this.db.table('channel_members')} m JOIN ${this.db.table('channels')} c ON c.id = m.channel_id
        WHERE c.account_id = $1 AND m.user_id = $2`,
      [accountId, userId],
    );
    return rows.map((r) => r.channel_id);
  }

  async find(accountId: string, id: string): Promise<Channel | null> {
    const row = await this.db.one<Row>(this.select('c.account_id = $1 AND c.id = $2'), [accountId, id]);
    return row ? toChannel(row) : null;
  }

  /** Any account's channel (webhooks: the channel id is the only key). null for ids that are not UUIDs. */
  async findById(id: string): Promise<Channel | null> {
    if (!UUID.test(id)) return null;
    const row = await this.db.one<Row>(this.select('c.id = $1'), [id]);
    return row ? toChannel(row) : null;
  }

  /** The account owning a channel, cached (webhook throttling looks it up on every delivery). */
  async accountOf(id: string): Promise<string | null> {
    const cached = this.accountCache.get(id);
    if (cached) return cached;
    if (!UUID.test(id)) return null;
    const row = await this.db.one<{ account_id: string }>(`SELECT account_id FROM ${this.db.table('channels')} WHERE id = $1`, [id]);
    if (row) {
      if (this.accountCache.size > 10_000) this.accountCache.clear();
      this.accountCache.set(id, row.account_id);
    }
    return row?.account_id ?? null;
  }

  /** Counts `n` webhook items addressed to `phoneNumberId` (not the channel's). */
  async countIgnored(id: string, n: number, phoneNumberId: string): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.db.table('channels')} SET ignored_items = ignored_items + $2, last_ignored_at = now(), last_ignored_phone_number_id = $3 WHERE id = $1`,
      [id, n, phoneNumberId],
    );
  }

  async insert(c: Omit<Channel, 'memberIds' | 'ignored' | 'createdAt' | 'updatedAt' | 'email'> & { email?: { address: string; settings: EmailSettings } }): Promise<void> {
    await this.db.affected(
      `INSERT INTO ${this.db.table('channels')} (id, account_id, type, name, phone_number, phone_number_id, business_account_id, credentials, auto_assignment, assignment_cap, team_id, email_address, email_settings, imap_next_poll_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, CASE WHEN $3 = 'email' THEN now() END)`,
      [c.id, c.accountId, c.type, c.name, c.phoneNumber, c.phoneNumberId, c.businessAccountId, c.credentials, c.autoAssignment, c.assignmentCap, c.teamId, c.email?.address ?? null, c.email ? JSON.stringify(c.email.settings) : null],
    );
  }

  /**
   * Claims up to `limit` email channels whose mailbox is due for a poll (FOR UPDATE SKIP LOCKED and a
   * lease of `leaseSeconds`): while one replica polls a mailbox no other does, and a crashed poller's
   * mailbox is taken again once its lease ran out.
   */
  async claimDueMailboxes(limit: number, leaseSeconds: number): Promise<string[]> {
    const rows = await this.db.claimDue<{ id: string }>({
      table: this.db.table('channels'),
      where: `type = 'email' AND imap_next_poll_at <= now()`,
      orderBy: 'imap_next_poll_at',
      limit,
      lease: { column: 'imap_lease_until', seconds: leaseSeconds },
    });
    return rows.map((r) => r.id);
  }

  /** Makes the mailbox due at once (a new or changed channel, the test route). */
  async pollSoon(id: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.db.table('channels')} SET imap_next_poll_at = now() WHERE id = $1 AND type = 'email'`, [id]);
  }

  /**
   * Moves the IMAP cursor to `uid` of mailbox generation `uidValidity`, never backwards within one
   * generation (two pollers of one mailbox cannot undo each other); a new UIDVALIDITY replaces it.
   */
  async advanceCursor(id: string, uidValidity: number, uid: number): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.db.table('channels')}
          SET imap_last_uid = CASE WHEN imap_uidvalidity = $2 THEN GREATEST(coalesce(imap_last_uid, 0), $3) ELSE $3 END, imap_uidvalidity = $2
        WHERE id = $1`,
      [id, uidValidity, uid],
    );
  }

  /** Counts a mail taken in (`received`) or one that opened nothing (an automatic reply, the channel's own). */
  async countMail(id: string, kind: 'received' | 'auto_reply' | 'own'): Promise<void> {
    const column = { received: 'mails_received', auto_reply: 'auto_replies_skipped', own: 'own_mails_skipped' }[kind];
    await this.db.affected(`UPDATE ${this.db.table('channels')} SET ${column} = ${column} + 1 WHERE id = $1`, [id]);
  }

  /** Ends a poll: its outcome, the next poll in `nextInMs`, the lease released. */
  async finishPoll(id: string, error: string | null, nextInMs: number): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.db.table('channels')}
          SET imap_last_polled_at = now(), imap_last_error = $2, imap_lease_until = NULL,
              imap_next_poll_at = now() + make_interval(secs => $3::double precision / 1000)
        WHERE id = $1`,
      [id, error?.slice(0, 1000) ?? null, nextInMs],
    );
  }

  /** `resetCursor`: the IMAP server or mailbox changed, its UIDs mean nothing here (the next poll starts from the date window). */
  async update(accountId: string, id: string, patch: Partial<Pick<Channel, 'name' | 'phoneNumber' | 'credentials' | 'autoAssignment' | 'teamId'>> & { assignmentCap?: number | null; emailSettings?: EmailSettings; resetCursor?: boolean }): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [accountId, id];
    const set = (column: string, value: unknown) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (patch.name !== undefined) set('name', patch.name);
    if (patch.phoneNumber !== undefined) set('phone_number', patch.phoneNumber);
    if (patch.credentials !== undefined) set('credentials', patch.credentials);
    if (patch.autoAssignment !== undefined) set('auto_assignment', patch.autoAssignment);
    if (patch.assignmentCap !== undefined) set('assignment_cap', patch.assignmentCap);
    if (patch.teamId !== undefined) set('team_id', patch.teamId);
    if (patch.emailSettings !== undefined) set('email_settings', JSON.stringify(patch.emailSettings));
    if (patch.resetCursor) sets.push('imap_uidvalidity = NULL', 'imap_last_uid = NULL');
    if (!sets.length) return;
    await this.db.affected(`UPDATE ${this.db.table('channels')} SET ${sets.join(', ')}, updated_at = now() WHERE account_id = $1 AND id = $2`, params);
  }

  async setMembers(channelId: string, userIds: string[]): Promise<void> {
    await this.db.affected(`DELETE FROM ${this.db.table('channel_members')} WHERE channel_id = $1 AND NOT (user_id = ANY($2::uuid[]))`, [channelId, userIds]);
    if (userIds.length) {
      await this.db.affected(`INSERT INTO ${this.db.table('channel_members')} (channel_id, user_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING`, [channelId, userIds]);
    }
  }

  /**
   * Round robin with a cap: among the channel's active members holding fewer than `cap` open
   * conversations, the one assigned longest ago (never first); marks it as just assigned. The channel
   * row is locked for the transaction, so concurrent assignments in one channel take turns.
   */
  async nextAssignee(channelId: string, cap: number | null): Promise<string | null> {
    await this.db.one(`SELECT id FROM ${this.db.table('channels')} WHERE id = $1 FOR NO KEY UPDATE`, [channelId]);
    const row = await this.db.one<{ user_id: string }>(
      `SELECT m.user_id FROM ${this.db.table('channel_members')} m
         JOIN ${this.db.table('users')} u ON u.id = m.user_id AND u.active
        WHERE m.channel_id = $1
          AND ($2::int IS NULL OR (SELECT count(*) FROM ${this.db.table('conversations')} c WHERE c.assignee_id = m.user_id AND c.status = 'open') < $2::int)
        ORDER BY m.last_assigned_at NULLS FIRST, m.user_id
        LIMIT 1`,
      [channelId, cap],
    );
    if (!row) return null;
    await this.db.affected(`UPDATE ${this.db.table('channel_members')} SET last_assigned_at = clock_timestamp() WHERE channel_id = $1 AND user_id = $2`, [channelId, row.user_id]);
    return row.user_id;
  }

  /**
   * `nextAssignee` for `n` new conversations in a row, in three statements: each goes to the member
   * the one before it left longest unassigned among those still under the cap (counting the ones
   * assigned here), or null when none is; the members' `last_assigned_at` follow the same order (the
   * statement's time, after the channel's lock was taken, a microsecond apart).
   */
  async nextAssignees(channelId: string, cap: number | null, n: number): Promise<Array<string | null>> {
    await this.db.one(`SELECT id FROM ${this.db.table('channels')} WHERE id = $1 FOR NO KEY UPDATE`, [channelId]);
    const members = await this.db.rows<{ user_id: string; open: number }>(
      `SELECT m.user_id, (SELECT count(*)::int FROM ${this.db.table('conversations')} c WHERE c.assignee_id = m.user_id AND c.status = 'open') AS open
         FROM ${this.db.table('channel_members')} m
         JOIN ${this.db.table('users')} u ON u.id = m.user_id AND u.active
        WHERE m.channel_id = $1
        ORDER BY m.last_assigned_at NULLS FIRST, m.user_id`,
      [channelId],
    );
    // Longest unassigned first; a member assigned here moves to the end.
    const queue = members.map((m) => ({ userId: m.user_id, open: m.open }));
    const picked: Array<string | null> = [];
    for (let i = 0; i < n; i++) {
      const at = queue.findIndex((m) => cap === null || m.open < cap);
      if (at < 0) {
        picked.push(null);
        continue;
      }
      const [member] = queue.splice(at, 1);
      member.open++;
      queue.push(member);
      picked.push(member.userId);
    }
    const order = [...new Set(picked.filter((p): p is string => p !== null).reverse())].reverse();
    if (order.length) {
      await this.db.affected(
        `UPDATE ${this.db.table('channel_members')} m SET last_assigned_at = statement_timestamp() + make_interval(secs => o.ord / 1e6)
           FROM unnest($2::uuid[]) WITH ORDINALITY AS o(user_id, ord) WHERE m.channel_id = $1 AND m.user_id = o.user_id`,
        [channelId, order],
      );
    }
    return picked;
  }
}
