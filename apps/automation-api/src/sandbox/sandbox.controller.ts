import { All, Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { createHmac } from 'node:crypto';
import type { Request, Response } from 'express';
import { WebhooksService } from '../webhooks/webhooks.service';
import { SandboxCommentDto, SandboxMessageDto, SandboxPostbackDto, SandboxUserDto } from './sandbox.dto';
import { SandboxError, SandboxPlatform } from './sandbox-platform';
import { SANDBOX } from '../accounts/sandbox-account';

const DEFAULT_USER = '1000000000000001';

/** The sandbox's Graph API subset, called by the service's own GraphClient (development only). */
@Controller('sandbox/graph')
export class SandboxGraphController {
  constructor(private readonly platform: SandboxPlatform) {}

  @All('*path')
  @ApiExcludeEndpoint()
  async graph(@Req() req: Request, @Res() res: Response): Promise<void> {
    const fail = (e: SandboxError) =>
      res.status(e.getStatus()).json({ error: { message: e.message, type: 'OAuthException', code: e.graphCode, error_subcode: e.subcode, fbtrace_id: 'sandbox' } });
    const path = req.path.replace(new RegExp(`^/sandbox/graph/${SANDBOX.version.replace('.', '\\.')}`), '');
    const uploadBase = `${req.protocol}://${req.get('host')}/sandbox/graph/${SANDBOX.version}/ig-api-upload`;
    if (path.startsWith('/ig-api-upload/')) {
      // The resumable upload (rupload): `Authorization: OAuth <token>`, the video bytes as the body.
      if (req.get('authorization') !== `OAuth ${SANDBOX.accessToken}`) return void fail(new SandboxError(400, 'Request processing failed: invalid token', 190));
      let bytes = 0;
      for await (const chunk of req) bytes += (chunk as Buffer).length;
      try {
        return void res.json(this.platform.upload(path.split('/')[2] ?? '', bytes));
      } catch (e) {
        if (e instanceof SandboxError) return void fail(e);
        throw e;
      }
    }
    const token = req.get('authorization')?.replace(/^Bearer /, '') ?? (req.query.access_token as string | undefined);
    if (token !== SANDBOX.accessToken) return void fail(new SandboxError(400, 'Invalid OAuth access token - Cannot parse access token', 190));
    try {
      res.json(this.platform.handle(req.method.toUpperCase(), path, req.query as Record<string, string>, (req.body ?? {}) as Record<string, any>, uploadBase));
    } catch (e) {
      if (e instanceof SandboxError) return void fail(e);
      throw e;
    }
  }
}

/**
 * Development-only endpoints to drive the sandbox: act as a person (comment, message, tap a button,
 * follow) and read what the service sent back. Each action goes through the real webhook receiver
 * with a signed body, so the whole engine runs as in production. Never registered with
 * NODE_ENV=production.
 */
@ApiTags('sandbox (development only)')
@Controller('sandbox')
export class SandboxController {
  constructor(
    private readonly platform: SandboxPlatform,
    private readonly webhooks: WebhooksService,
  ) {}

  @Post('comments')
  @HttpCode(201)
  @ApiOperation({ summary: 'A person comments on a sandbox post (sent to the webhook receiver)' })
  @ApiCreatedResponse({ description: 'The comment as delivered', schema: { type: 'object', properties: { comment_id: { type: 'string' }, media_id: { type: 'string' }, user_id: { type: 'string' } } } })
  async comment(@Body() dto: SandboxCommentDto) {
    const c = this.platform.addComment({ text: dto.text, media_id: dto.media_id, user_id: dto.user_id ?? DEFAULT_USER, username: dto.username, parent_id: dto.parent_id });
    await this.deliver({
      changes: [{ field: 'comments', value: { id: c.id, from: c.from, text: c.text, media: { id: c.media_id, media_product_type: 'FEED' }, ...(c.parent_id ? { parent_id: c.parent_id } : {}) } }],
    });
    return { comment_id: c.id, media_id: c.media_id, user_id: c.from.id };
  }

  @Post('messages')
  @HttpCode(201)
  @ApiOperation({ summary: 'A person sends a direct message (or a story reply with story_id)' })
  @ApiCreatedResponse({ description: 'The message as delivered', schema: { type: 'object', properties: { mid: { type: 'string' }, user_id: { type: 'string' } } } })
  async message(@Body() dto: SandboxMessageDto) {
    const user = this.platform.user(dto.user_id ?? DEFAULT_USER, dto.username);
    const mid = `mid.${this.platform.nextId()}`;
    await this.deliver({
      messaging: [
        { sender: { id: user.id }, recipient: { id: SANDBOX.igUserId }, timestamp: Date.now(), message: { mid, text: dto.text, ...(dto.story_id ? { reply_to: { story: { id: dto.story_id, url: 'https://sandbox.invalid/story' } } } : {}) } },
      ],
    });
    return { mid, user_id: user.id };
  }

  @Post('postbacks')
  @HttpCode(201)
  @ApiOperation({ summary: 'A person taps a postback button (payload from GET /sandbox/outbox)' })
  @ApiCreatedResponse({ description: 'The tap as delivered', schema: { type: 'object', properties: { mid: { type: 'string' }, user_id: { type: 'string' } } } })
  async postback(@Body() dto: SandboxPostbackDto) {
    const user = this.platform.user(dto.user_id ?? DEFAULT_USER);
    const mid = `pb.${this.platform.nextId()}`;
    await this.deliver({ messaging: [{ sender: { id: user.id }, recipient: { id: SANDBOX.igUserId }, timestamp: Date.now(), postback: { mid, title: 'button', payload: dto.payload } }] });
    return { mid, user_id: user.id };
  }

  @Post('users')
  @HttpCode(200)
  @ApiOperation({ summary: 'Creates or changes a sandbox person (follows the account or not)' })
  @ApiOkResponse({ description: 'The person', schema: { type: 'object', properties: { id: { type: 'string' }, username: { type: 'string' }, follows: { type: 'boolean' } } } })
  user(@Body() dto: SandboxUserDto) {
    return this.platform.user(dto.user_id, dto.username, dto.follows);
  }

  @Get('outbox')
  @ApiOperation({ summary: 'What the service sent (DMs, private and public replies), newest last, and the sandbox posts' })
  @ApiOkResponse({
    description: 'Everything sent, newest last, and the sandbox posts (Graph API media objects)',
    schema: {
      type: 'object',
      properties: {
        sent: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              kind: { type: 'string', enum: ['public_reply', 'message'], description: 'message: a DM, or a private reply when `to` holds a comment_id' },
              to: { type: 'object', description: '{comment_id} or {user_id} (and comment_id for a private reply)' },
              message: { type: 'object', description: 'The Send API message: {text} or a button template attachment' },
              at: { type: 'string', format: 'date-time' },
            },
          },
        },
        posts: { type: 'array', items: { type: 'object' } },
      },
    },
  })
  outbox() {
    return { sent: this.platform.sent, posts: this.platform.media };
  }

  private async deliver(entry: Record<string, unknown>): Promise<void> {
    const body = { object: 'instagram', entry: [{ id: SANDBOX.igUserId, time: Math.floor(Date.now() / 1000), ...entry }] };
    const raw = Buffer.from(JSON.stringify(body));
    const signature = `sha256=${createHmac('sha256', SANDBOX.appSecret).update(raw).digest('hex')}`;
    await this.webhooks.receive(raw, signature, body);
  }
}
