import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import type { OutboxRow } from '@platform/messaging';
import { AccountsService } from '../accounts/accounts.service';
import { ChannelsService, type Channel } from '../channels/channels.service';
import { ContactsService } from '../contacts/contacts.service';
import { RealtimeEvents, type RealtimeEventName } from '../realtime/realtime-events';
import { statusAfterIncoming, type Attachment, type Conversation, type ConversationStatus, type MessageStatus } from './conversation';
import { ConversationEvents, EVENT_CLAIM_SECONDS, type RaisedEvent } from './conversation-events';
import { ConversationsRepository } from './conversations.repository';
import { conversationView, messageView } from './dto/conversation.dto';
import { MessagesRepository, type NewMessage } from './messages.repository';

/** One message a contact sent through a channel, in the channel-neutral form. */
export interface InboundMessage {
  /** The provider's message id: a second delivery of the same id creates nothing. */
  sourceId: string;
  /** The sender's address on the channel (WhatsApp `wa_id`). */
  from: string;
  profileName: string | null;
  content: string | null;
  contentType: string;
  attachments: Attachment[];
  /** The sender's email address, kept on a new contact (email channels). */
  email?: string | null;
  /** Channel-specific details kept with the message (an email's headers). */
  contentAttributes?: Record<string, unknown>;
  /**
   * Email threading: the Message-IDs the mail answers (In-Reply-To, References). When given, the
   * conversation holding one of them on the channel takes the message, else a new one opens (instead
   * of the sender's latest conversation).
   */
  thread?: string[];
}

/** Rolls back a delivery found to be stored already after it created something. */
class RedeliveryRollback extends Error {}

/** Rolls back a batch whose messages `keys` (channel and provider id) were stored already, after opening conversations for them. */
class StoredAlready extends Error {
  constructor(readonly keys: string[]) {
    super('stored already');
  }
}

export type InboundResult = { duplicate: true } | { duplicate: false; conversationId: string; messageId: string; contactCreated: boolean; conversationCreated: boolean };

/** Messages of one channel that arrived together (a webhook delivery), without email threading; `correlationId`: the request. */
export interface InboundDelivery {
  channel: Channel;
  messages: InboundMessage[];
  correlationId?: string;
}

/** One message of a batch on its way to being stored: message `j` of delivery `i`. */
interface Item {
  channel: Channel;
  m: InboundMessage;
  correlationId?: string;
  i: number;
  j: number;
}

const keyOf = (channelId: string, sourceId: string) => `${channelId}\u0000${sourceId}`;

/** Senders whose conversation a process remembers at most (see `storeOfKnownSenders`). */
export const KNOWN_SENDERS = 50_000;

/** A sender's latest conversation on a channel, its contact and its status as last seen. */
interface Known {
  id: string;
  contactId: string;
  status: ConversationStatus;
}

@Injectable()
export class InboundService {
  /** channel and sender id → the sender's conversation (see `storeOfKnownSenders`). */
  private readonly knownSenders = new Map<string, Known>();

  constructor(
    private readonly transactions: Transactions,
    private readonly accounts: AccountsService,
    private readonly channels: ChannelsService,
    private readonly contacts: ContactsService,
    private readonly conversations: ConversationsRepository,
    private readonly messages: MessagesRepository,
    private readonly realtime: RealtimeEvents,
    private readonly events: ConversationEvents,
  ) {}

  /** Whether the provider message was stored already (a cheap check before fetching media). */
  seen(channelId: string, sourceId: string): Promise<boolean> {
    return this.messages.existsBySource(channelId, sourceId);
  }

  /**
   * Stores an incoming message, once per provider message id, in one transaction: the contact (new
   * senders become contacts), its latest conversation on the channel (reopened when resolved or
   * snoozed) or a new one (team of the channel, agent by round robin when the channel assigns
   * automatically), the message, and the waiting time. Deliveries of one sender take turns (an
   * advisory lock), so concurrent redeliveries and a new sender's first messages never duplicate.
   * An email (`thread`) goes to the conversation of its thread; other messages as `storeBatch` stores them.
   */
  async receive(channel: Channel, m: InboundMessage): Promise<InboundResult> {
    if (!m.thread) {
      const [stored] = await this.storeBatch([{ channel, messages: [m] }]);
      if (stored instanceof Error) throw stored;
      return stored[0];
    }
    const result = await this.transactions
      .transaction(async () => {
        await this.transactions.lock(`inbound:${channel.id}:${m.from}`);
        let conversation = await this.conversations.ofThread(channel.id, m.thread!);
        let conversationCreated = false;
        // A reply in a mail thread may come from another address than the conversation's contact (a colleague in copy).
        const found = await this.contacts.findOrCreateBySource(channel.accountId, channel.id, m.from, { name: m.profileName, email: m.email ?? null });
        const contactId = found.contact.id;
        const contactCreated = found.created;
        if (!conversation) {
          const assigneeId = channel.autoAssignment ? await this.channels.nextAssignee(channel) : null;
          const id = await this.conversations.insert({
            accountId: channel.accountId,
            displayId: await this.accounts.nextDisplayId(channel.accountId),
            channelId: channel.id,
            contactId,
            status: 'open',
            assigneeId,
            teamId: channel.teamId,
          });
          conversation = (await this.conversations.find(channel.accountId, id))!;
          conversationCreated = true;
        }
        const message = await this.messages.insertUnlessStored(incoming(channel, conversation.id, contactId, m));
        if (!message) {
          // Stored already: nothing of this delivery may stay (a stored message implies its contact and conversation existed).
          if (contactCreated || conversationCreated) throw new RedeliveryRollback();
          return null;
        }
        const next = statusAfterIncoming(conversation.status);
        const statusChanged = next !== conversation.status;
        if (statusChanged) await this.reopen(channel, conversation.id);
        const after = await this.conversations.touchIncoming(conversation.id);
        if (conversationCreated) await this.events.raise('conversation_created', after);
        if (statusChanged) await this.events.raise('status_changed', after, { from: conversation.status, to: next });
        await this.events.raise('message_created', after, { message });
        return { message, conversation: after, contactCreated, conversationCreated, statusChanged };
      })
      .catch((err: unknown) => {
        if (err instanceof RedeliveryRollback) return null;
        throw err;
      });
    if (!result) return { duplicate: true };
    const { message, conversation } = result;
    if (result.conversationCreated) this.realtime.emit(conversation, 'conversation.created', conversationView(conversation));
    if (result.statusChanged) this.realtime.emit(conversation, 'conversation.status_changed', conversationView(conversation));
    this.realtime.emit(conversation, 'message.created', messageView(message));
    return { duplicate: false, conversationId: conversation.id, messageId: message.id, contactCreated: result.contactCreated, conversationCreated: result.conversationCreated };
  }

  /**
   * Stores the messages of several deliveries (no email threading) as `receive` would one after the
   * other, in a fixed number of statements per channel. Senders with a conversation on the channel
   * (the usual case) are looked up, then their messages stored in one statement of its own, which
   * locks their conversations and checks them unchanged, inserts the messages (a provider id stored
   * already, or twice in the batch, is a duplicate), reopens resolved and snoozed conversations,
   * sets the waiting times and writes the events into the outbox. The others (new senders, and
   * those whose conversation changed in between) go through one transaction that locks them, opens
   * their contacts and conversations (round robin and display ids for all of them at once) and
   * stores their messages the same way. Events are published once committed; then the agents hear
   * of it. Per delivery, per message, in order: what became of it; or the error that kept it from
   * being stored (when the transaction of several fails, each delivery is tried again alone).
   */
  async storeBatch(deliveries: InboundDelivery[]): Promise<Array<InboundResult[] | Error>> {
    const answers: InboundResult[][] = deliveries.map((d) => d.messages.map((): InboundResult => ({ duplicate: true })));
    const errors = new Map<number, Error>();
    const items: Item[] = [];
    const seen = new Set<string>();
    deliveries.forEach((d, i) =>
      d.messages.forEach((m, j) => {
        const key = keyOf(d.channel.id, m.sourceId);
        // A provider id twice in the batch: the first one is stored, the others are duplicates.
        if (seen.has(key)) return;
        seen.add(key);
        items.push({ channel: d.channel, m, correlationId: d.correlationId, i, j });
      }),
    );
    const settle = (stored: Stored) => {
      for (const [key, known] of stored.learned) this.remember(key, known);
      // Committed: the events go out now (the relay takes over what fails), without holding the answer.
      void this.events.publish(stored.events);
      for (const e of stored.notices) this.realtime.emit(e.conversation, e.event, e.payload);
      for (const [item, result] of stored.results) answers[item.i][item.j] = result;
    };
    // A failure is the error of its deliveries; what committed before it stays answered as stored.
    const fail = (failed: Item[], err: unknown) => {
      for (const it of failed) errors.set(it.i, err instanceof Error ? err : new Error(String(err)));
    };
    let rest: Item[] = [];
    for (const group of byChannel(items)) {
      try {
        const stored = emptyStored();
        rest.push(...(await this.storeOfKnownSenders(group[0].channel, group, stored)));
        settle(stored);
      } catch (err) {
        fail(group, err);
      }
    }
    rest = rest.filter((it) => !errors.has(it.i));
    const inTransaction = async (part: Item[]) => {
      while (part.length) {
        try {
          settle(await this.transactions.transaction(() => this.storeOfAnySenders(part)));
          return;
        } catch (err) {
          if (!(err instanceof StoredAlready)) throw err;
          // Messages stored meanwhile by a sender not known yet: without them, nothing is opened for them.
          const dropped = new Set(err.keys);
          part = part.filter((it) => !dropped.has(keyOf(it.channel.id, it.m.sourceId)));
        }
      }
    };
    try {
      await inTransaction(rest);
    } catch (err) {
      // Rolled back: each delivery again alone, so that one delivery's problem is its own.
      const byDelivery = new Map<number, Item[]>();
      for (const it of rest) byDelivery.set(it.i, [...(byDelivery.get(it.i) ?? []), it]);
      if (byDelivery.size === 1) fail(rest, err);
      else for (const part of byDelivery.values()) await inTransaction(part).catch((one: unknown) => fail(part, one));
    }
    return answers.map((a, i) => errors.get(i) ?? a);
  }

  /**
   * The messages of the channel's senders who have a conversation, in one statement of their own
   * (no transaction); the items it did not take (other senders, a conversation changed since it was
   * read, a contact without a name for whom a profile name arrived). A sender's conversation and
   * contact are looked up once per process (a sender's latest conversation on a channel never
   * changes once it exists: nothing opens another while it exists, nothing deletes one); their
   * status and name are checked by the statement itself.
   */
  private async storeOfKnownSenders(channel: Channel, items: Item[], out: Stored): Promise<Item[]> {
    const known = new Map<string, Known>();
    const unknown: string[] = [];
    for (const sender of new Set(items.map((it) => it.m.from))) {
      const hit = this.knownSenders.get(keyOf(channel.id, sender));
      if (hit) known.set(sender, hit);
      else unknown.push(sender);
    }
    if (unknown.length) {
      for (const [sender, c] of await this.conversations.latestForSources(channel.id, unknown, false)) known.set(sender, { id: c.id, contactId: c.contactId, status: c.status });
    }
    const mine = items.filter((it) => known.has(it.m.from));
    if (!mine.length) return items;
    const changed = await this.write(channel, mine, known, new Map(), out);
    for (const [sender, c] of known) if (changed.has(c.id)) this.knownSenders.delete(keyOf(channel.id, sender));
    return items.filter((it) => !known.has(it.m.from) || changed.has(known.get(it.m.from)!.id));
  }

  /** The messages of any senders, in the open transaction: their locks, their contacts and conversations when new, then the write. */
  private async storeOfAnySenders(items: Item[]): Promise<Stored> {
    const out = emptyStored();
    for (const group of byChannel(items)) await this.storeOfChannelSenders(group[0].channel, group, out);
    return out;
  }

  /**
   * `storeOfAnySenders` on the messages of one channel. The senders' latest conversations are locked
   * first; senders without one are locked (`inbound:<channel>:<sender>`, as `receive` locks them)
   * and looked up again, then get their contact (found or created) and conversation.
   */
  private async storeOfChannelSenders(channel: Channel, items: Item[], out: Stored): Promise<void> {
    const senders = [...new Set(items.map((it) => it.m.from))];
    const latest = await this.conversations.latestForSources(channel.id, senders, true);
    let newSenders = senders.filter((s) => !latest.has(s));
    if (newSenders.length) {
      await this.transactions.lockAll(newSenders.map((sender) => `inbound:${channel.id}:${sender}`));
      // Another delivery may have opened their conversations meanwhile.
      for (const [sender, c] of await this.conversations.latestForSources(channel.id, newSenders, true)) latest.set(sender, c);
      newSenders = newSenders.filter((s) => !latest.has(s));
    }
    // Each sender's first message gives the profile of a new contact.
    const firstOf = new Map<string, InboundMessage>();
    for (const it of items) if (!firstOf.has(it.m.from)) firstOf.set(it.m.from, it.m);
    const opened = new Map<string, Opened>();
    if (newSenders.length) {
      const contacts = await this.contacts.findOrCreateManyBySource(
        channel.accountId,
        channel.id,
        newSenders.map((s) => ({ sourceId: s, name: firstOf.get(s)!.profileName, phone: `+${s.replace(/^\+/, '')}` })),
      );
      const assignees = channel.autoAssignment ? await this.channels.nextAssignees(channel, newSenders.length) : newSenders.map(() => null);
      const displayIds = await this.accounts.nextDisplayIds(channel.accountId, newSenders.length);
      for (const s of newSenders) opened.set(s, { conversationId: randomUUID(), contactId: contacts.get(s)!.contact.id, contactCreated: contacts.get(s)!.created });
      await this.conversations.insertMany(
        newSenders.map((s, i) => ({ id: opened.get(s)!.conversationId, accountId: channel.accountId, displayId: displayIds[i], channelId: channel.id, contactId: opened.get(s)!.contactId, status: 'open' as const, assigneeId: assignees[i], teamId: channel.teamId })),
      );
    }
    // A known contact without a name takes the profile name arriving with its message.
    for (const [sender, c] of latest) {
      const name = firstOf.get(sender)!.profileName;
      if (!c.contact.name && name) await this.contacts.rename(channel.accountId, c.contactId, name);
    }
    const known = new Map<string, Known>([...latest].map(([sender, c]) => [sender, { id: c.id, contactId: c.contactId, status: c.status }]));
    // Their conversations are locked or new here: none can have changed.
    if ((await this.write(channel, items, known, opened, out)).size) throw new Error('a conversation locked by the transaction changed');
    // A stored message implies its contact and conversation existed: none may be opened for messages all stored already.
    const orphans = [...opened.keys()].filter((s) => !items.some((it) => it.m.from === s && out.results.has(it)));
    if (orphans.length) throw new StoredAlready(items.filter((it) => orphans.includes(it.m.from)).map((it) => keyOf(channel.id, it.m.sourceId)));
  }

  /**
   * Writes the messages of senders with a conversation (`latest`, as read; or `opened` just now) in
   * one statement, with the conversations' reopening and waiting times and the events (built here,
   * each written only if its message, or its conversation, was); collects the results, events and
   * notices into `out`. Answers the conversations that were not as read (nothing of theirs written).
   */
  private async write(channel: Channel, items: Item[], latest: Map<string, Known>, opened: Map<string, Opened>, out: Stored): Promise<Set<string>> {
    const conversationOf = (sender: string) => latest.get(sender)?.id ?? opened.get(sender)!.conversationId;
    const expected = new Map<string, { status: ConversationStatus; named: boolean }>();
    const reopen = new Map<string, { from: ConversationStatus; to: ConversationStatus }>();
    for (const it of items) {
      const c = latest.get(it.m.from);
      const id = c?.id ?? opened.get(it.m.from)!.conversationId;
      expected.set(id, { status: c?.status ?? 'open', named: (expected.get(id)?.named ?? false) || it.m.profileName !== null });
      if (!c) continue;
      const next = statusAfterIncoming(c.status);
      if (next !== c.status) reopen.set(c.id, { from: c.status, to: next });
    }
    const ref = (id: string) => ({ id, accountId: channel.accountId, channelId: channel.id });
    const rows = items.map((it) => ({
      id: randomUUID(),
      accountId: channel.accountId,
      conversationId: conversationOf(it.m.from),
      senderId: latest.get(it.m.from)?.contactId ?? opened.get(it.m.from)!.contactId,
      sourceId: it.m.sourceId,
      content: it.m.content,
      contentType: it.m.contentType,
      attachments: it.m.attachments,
      contentAttributes: it.m.contentAttributes,
    }));
    // The events as if every message were new; each is written only if its message (or conversation) was.
    const raised: Array<RaisedEvent & { gate: { sourceId: string } | { conversationId: string } }> = [];
    const announced = new Set<string>();
    items.forEach((it, i) => {
      const conversationId = rows[i].conversationId;
      if (!announced.has(conversationId)) {
        announced.add(conversationId);
        if (opened.has(it.m.from)) raised.push({ trigger: 'conversation_created', conversation: ref(conversationId), correlationId: it.correlationId, gate: { conversationId } });
        const change = reopen.get(conversationId);
        if (change) raised.push({ trigger: 'status_changed', conversation: ref(conversationId), extra: change, correlationId: it.correlationId, gate: { conversationId } });
      }
      const message = { id: rows[i].id, messageType: 'incoming' as const, content: it.m.content, contentType: it.m.contentType };
      raised.push({ trigger: 'message_created', conversation: ref(conversationId), extra: { message }, correlationId: it.correlationId, gate: { sourceId: it.m.sourceId } });
    });
    const envelopes = this.events.envelopes(raised);
    const written = await this.messages.storeIncoming(
      channel.id,
      rows,
      [...expected].map(([id, e]) => ({ id, ...e })),
      [...reopen.keys()],
      raised.map((e, i) => ({ envelope: envelopes[i], gate: e.gate })),
      EVENT_CLAIM_SECONDS,
    );

    out.events.push(...written.events);
    for (const it of items) {
      const conversation = written.conversations.get(conversationOf(it.m.from));
      if (conversation) out.learned.set(keyOf(channel.id, it.m.from), { id: conversation.id, contactId: conversation.contactId, status: conversation.status });
    }
    const first = new Set<string>();
    items.forEach((it, i) => {
      const message = written.messages[i];
      if (!message) return;
      const conversation = written.conversations.get(message.conversationId)!;
      const fresh = opened.get(it.m.from);
      const isFirst = !first.has(conversation.id);
      if (isFirst) {
        first.add(conversation.id);
        if (fresh) out.notices.push({ conversation, event: 'conversation.created', payload: conversationView(conversation) });
        if (reopen.has(conversation.id)) out.notices.push({ conversation, event: 'conversation.status_changed', payload: conversationView(conversation) });
      }
      out.notices.push({ conversation, event: 'message.created', payload: messageView(message) });
      out.results.set(it, {
        duplicate: false,
        conversationId: conversation.id,
        messageId: message.id,
        contactCreated: isFirst && fresh?.contactCreated === true,
        conversationCreated: isFirst && fresh !== undefined,
      });
    });
    return written.changed;
  }

  /** Remembers a sender's conversation (the oldest remembered is forgotten first beyond KNOWN_SENDERS). */
  private remember(key: string, known: Known): void {
    this.knownSenders.delete(key);
    if (this.knownSenders.size >= KNOWN_SENDERS) this.knownSenders.delete(this.knownSenders.keys().next().value as string);
    this.knownSenders.set(key, known);
  }

  /** A resolved or snoozed conversation opened again by an incoming message, with its activity line. */
  private async reopen(channel: Channel, conversationId: string): Promise<void> {
    await this.conversations.setStatus(conversationId, 'open', null);
    await this.messages.insert({ accountId: channel.accountId, conversationId, channelId: channel.id, messageType: 'activity', content: 'Conversation was reopened by a new message from the contact', status: 'sent' });
  }

  /** A provider status callback (sent, delivered, read, failed) for one of our outgoing messages. */
  async status(channel: Channel, sourceId: string, status: MessageStatus, error: string | null): Promise<boolean> {
    const message = await this.messages.advanceStatus(channel.id, sourceId, status, error);
    if (message) this.realtime.emit({ accountId: channel.accountId, channelId: channel.id }, 'message.updated', messageView(message));
    return message !== null;
  }
}

/** An event for the agents, sent once its transaction committed. */
interface Notice {
  conversation: Conversation;
  event: RealtimeEventName;
  payload: unknown;
}

/** The row of an incoming message. */
function incoming(channel: Channel, conversationId: string, contactId: string, m: InboundMessage): NewMessage & { sourceId: string } {
  return {
    accountId: channel.accountId,
    conversationId,
    channelId: channel.id,
    messageType: 'incoming',
    content: m.content,
    contentType: m.contentType,
    status: 'delivered',
    sourceId: m.sourceId,
    senderType: 'contact',
    senderId: contactId,
    attachments: m.attachments,
    contentAttributes: m.contentAttributes,
  };
}

/** A conversation opened for a new sender in this batch. */
interface Opened {
  conversationId: string;
  contactId: string;
  contactCreated: boolean;
}

/** What a write stored: per item its result, the outbox rows to publish and the notices for the agents, once committed. */
interface Stored {
  results: Map<Item, InboundResult>;
  events: OutboxRow[];
  notices: Notice[];
  /** The senders' conversations as the write left them, remembered once committed. */
  learned: Map<string, Known>;
}

const emptyStored = (): Stored => ({ results: new Map(), events: [], notices: [], learned: new Map() });

/** The items of each channel, in order; the channels in the order of their ids (transactions over several lock them alike). */
function byChannel(items: Item[]): Item[][] {
  const groups = new Map<string, Item[]>();
  for (const it of items) groups.set(it.channel.id, [...(groups.get(it.channel.id) ?? []), it]);
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, group]) => group);
}
