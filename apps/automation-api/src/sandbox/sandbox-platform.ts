import { Injectable } from '@nestjs/common';
import { ApiError, defaultCode } from '@platform/errors';
import { SANDBOX } from '../accounts/sandbox-account';

/**
 * In-memory stand-in for the social platform (development only): one business account, a feed
 * with a post and a reel, comments with replies, people (with a follow flag), and every message the
 * service sent. It implements the subset of the Graph API the service calls, with the platform's
 * rules that matter to the engine (one private reply per comment; replies on top-level comments).
 */

export interface SandboxComment {
  id: string;
  media_id: string;
  text: string;
  timestamp: string;
  from: { id: string; username: string };
  parent_id?: string;
  replies: Array<{ id: string; text: string; timestamp: string; from: { id: string; username: string } }>;
  private_replied?: boolean;
}

export interface SandboxUser {
  id: string;
  username: string;
  follows: boolean;
}

/** A reel container of the content-publishing flow (finished on its first status read once it has a video). */
export interface SandboxContainer {
  id: string;
  caption: string;
  video_url?: string;
  uploaded_bytes: number;
  status_code: 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED';
  media_id?: string;
}

export interface SandboxSent {
  id: string;
  kind: 'message' | 'public_reply';
  to: Record<string, string>;
  message: unknown;
  at: string;
}

/**
 * A refusal of the simulated platform: the Graph API's error (`code`, `subcode`) on /sandbox/graph,
 * and its status and message in the service's `{error}` shape on the /sandbox actions.
 */
export class SandboxError extends ApiError {
  constructor(
    status: number,
    message: string,
    /** The Graph API's error `code` (the ApiError's own `code` is the service's, e.g. NOT_FOUND). */
    readonly graphCode: number,
    readonly subcode?: number,
  ) {
    super(status, defaultCode(status), message);
  }
}

function graphTime(d = new Date()): string {
  return d.toISOString().replace(/\.\d{3}Z$/, '+0000');
}

@Injectable()
export class SandboxPlatform {
  private seq = 1;
  readonly media: Array<Record<string, unknown> & { id: string }> = [];
  readonly comments = new Map<string, SandboxComment>();
  readonly users = new Map<string, SandboxUser>();
  readonly sent: SandboxSent[] = [];
  readonly containers = new Map<string, SandboxContainer>();
  subscribedFields: string[] = ['comments', 'messages', 'messaging_postbacks'];

  constructor() {
    this.addMedia({ caption: 'Welcome to the sandbox: comment LINK', media_type: 'IMAGE', media_product_type: 'FEED' });
    this.addMedia({ caption: 'Sandbox reel', media_type: 'VIDEO', media_product_type: 'REELS' });
  }

  nextId(prefix = '1790'): string {
    return `${prefix}${String(Date.now()).slice(-8)}${String(this.seq++).padStart(5, '0')}`;
  }

  addMedia(m: { caption?: string; media_type?: string; media_product_type?: string }): Record<string, unknown> & { id: string } {
    const id = this.nextId('1800');
    const item = {
      id,
      caption: m.caption ?? '',
      media_type: m.media_type ?? 'IMAGE',
      media_product_type: m.media_product_type ?? 'FEED',
      media_url: `https://sandbox.invalid/${id}.jpg`,
      permalink: `https://sandbox.invalid/p/${id}`,
      timestamp: graphTime(),
      like_count: 0,
    };
    this.media.unshift(item);
    return item;
  }

  user(id: string, username?: string, follows?: boolean): SandboxUser {
    const existing = this.users.get(id);
    const user = { id, username: username ?? existing?.username ?? `user_${id.slice(-4)}`, follows: follows ?? existing?.follows ?? false };
    this.users.set(id, user);
    return user;
  }

  addComment(c: { text: string; media_id?: string; user_id: string; username?: string; parent_id?: string }): SandboxComment {
    const media = c.media_id ?? this.media[0].id;
    if (!this.media.some((m) => m.id === media)) throw new SandboxError(404, `no media ${media} (GET /sandbox/outbox lists the sandbox posts)`, 100);
    const user = this.user(c.user_id, c.username);
    const comment: SandboxComment = { id: this.nextId(), media_id: media, text: c.text, timestamp: graphTime(), from: { id: user.id, username: user.username }, parent_id: c.parent_id, replies: [] };
    this.comments.set(comment.id, comment);
    return comment;
  }

  /** The resumable upload of a container's video (the rupload host's part). */
  upload(containerId: string, bytes: number): { success: boolean; message: string } {
    const c = this.containers.get(containerId);
    if (!c || c.video_url) throw new SandboxError(400, 'Request processing failed: unknown container', 100);
    c.uploaded_bytes = bytes;
    return { success: true, message: 'Upload successful.' };
  }

  /**
   * The Graph API subset (paths without the version prefix). `uploadBase` is where this sandbox serves
   * resumable uploads (`<uploadBase>/<container id>`).
   */
  handle(method: string, path: string, query: Record<string, string>, body: Record<string, any>, uploadBase = ''): unknown {
    const segs = path.split('/').filter(Boolean);
    const isAccount = (s: string) => s === 'me' || s === SANDBOX.igUserId;
    if (method === 'GET' && segs.length === 1 && isAccount(segs[0])) {
      return { id: SANDBOX.igUserId, user_id: SANDBOX.igUserId, username: SANDBOX.username, name: 'Sandbox Business' };
    }
    if (segs.length === 2 && isAccount(segs[0])) {
      if (segs[1] === 'media' && method === 'GET') return { data: this.media.map((m) => ({ ...m, comments_count: this.commentsOf(m.id).length })) };
      if (segs[1] === 'subscribed_apps' && method === 'GET') return { data: [{ id: 'sandbox-app', subscribed_fields: this.subscribedFields }] };
      if (segs[1] === 'subscribed_apps' && method === 'POST') {
        this.subscribedFields = String(query.subscribed_fields ?? body.subscribed_fields ?? '').split(',').filter(Boolean);
        return { success: true };
      }
      if (segs[1] === 'messages' && method === 'POST') return this.sendMessage(body);
      if (segs[1] === 'media' && method === 'POST') {
        const params = { ...body, ...query };
        if (params.media_type !== 'REELS') throw new SandboxError(400, '(#100) The parameter media_type must be REELS for a video', 100);
        if (!params.video_url && params.upload_type !== 'resumable') throw new SandboxError(400, '(#100) The parameter video_url is required', 100);
        const id = this.nextId('1781');
        this.containers.set(id, { id, caption: String(params.caption ?? ''), video_url: params.video_url, uploaded_bytes: 0, status_code: 'IN_PROGRESS' });
        return params.video_url ? { id } : { id, uri: `${uploadBase}/${id}` };
      }
      if (segs[1] === 'media_publish' && method === 'POST') {
        const c = this.containers.get(String(query.creation_id ?? body.creation_id ?? ''));
        if (!c) throw new SandboxError(400, 'Object with the given creation_id does not exist', 100, 33);
        if (c.status_code !== 'FINISHED') throw new SandboxError(400, 'Media ID is not available', 9007, 2207027);
        const media = this.addMedia({ caption: c.caption, media_type: 'VIDEO', media_product_type: 'REELS' });
        c.status_code = 'PUBLISHED';
        c.media_id = media.id;
        return { id: media.id };
      }
    }
    if (segs.length === 2 && segs[1] === 'comments' && method === 'GET') return { data: this.commentsOf(segs[0]).map((c) => this.commentView(c)) };
    if (segs.length === 2 && segs[1] === 'replies' && method === 'POST') {
      const comment = this.comments.get(segs[0]);
      if (!comment) throw new SandboxError(400, `Object with ID '${segs[0]}' does not exist`, 100, 33);
      if (comment.parent_id) throw new SandboxError(400, 'Replies are only allowed on top-level comments', 100);
      const reply = { id: this.nextId(), text: String(body.message ?? ''), timestamp: graphTime(), from: { id: SANDBOX.igUserId, username: SANDBOX.username } };
      comment.replies.push(reply);
      this.sent.push({ id: reply.id, kind: 'public_reply', to: { comment_id: comment.id }, message: { text: reply.text }, at: new Date().toISOString() });
      return { id: reply.id };
    }
    if (segs.length === 1 && method === 'GET') {
      const id = segs[0];
      const media = this.media.find((m) => m.id === id);
      if (media) return media;
      const container = this.containers.get(id);
      if (container) {
        if (container.status_code === 'IN_PROGRESS' && (container.video_url || container.uploaded_bytes > 0)) container.status_code = 'FINISHED';
        return { id, status_code: container.status_code, status: container.status_code === 'IN_PROGRESS' ? 'In Progress: waiting for the video' : container.status_code };
      }
      const comment = this.comments.get(id);
      if (comment) return this.commentView(comment);
      const user = this.users.get(id);
      if (user) return { id: user.id, username: user.username, is_user_follow_business: user.follows, is_business_follow_user: false };
      throw new SandboxError(400, `Object with ID '${id}' does not exist`, 100, 33);
    }
    throw new SandboxError(400, `Unknown path components: /${segs.join('/')}`, 2500);
  }

  private commentsOf(mediaId: string): SandboxComment[] {
    return [...this.comments.values()].filter((c) => c.media_id === mediaId && !c.parent_id);
  }

  private commentView(c: SandboxComment): Record<string, unknown> {
    return { id: c.id, text: c.text, timestamp: c.timestamp, from: c.from, username: c.from.username, ...(c.parent_id ? { parent_id: c.parent_id } : {}), replies: { data: c.replies } };
  }

  private sendMessage(body: Record<string, any>): unknown {
    const recipient = body.recipient ?? {};
    if (!body.message) throw new SandboxError(400, '(#100) The parameter message is required', 100);
    let to: string;
    if (recipient.comment_id) {
      const comment = this.comments.get(String(recipient.comment_id));
      if (!comment || comment.private_replied) throw new SandboxError(400, 'The comment is invalid for a private reply', 10, 2534025);
      comment.private_replied = true;
      to = comment.from.id;
    } else if (recipient.id && this.users.has(String(recipient.id))) {
      to = String(recipient.id);
    } else {
      throw new SandboxError(400, 'No matching user found', 100, 2534014);
    }
    const id = `mid.${this.nextId()}`;
    this.sent.push({ id, kind: 'message', to: recipient.comment_id ? { comment_id: String(recipient.comment_id), user_id: to } : { user_id: to }, message: body.message, at: new Date().toISOString() });
    return { recipient_id: to, message_id: id };
  }
}
