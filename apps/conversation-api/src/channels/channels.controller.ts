import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope } from '@platform/envelopes';
import { RequirePermission, ApiErrorAnswer } from '../access/access.decorators';
import { CurrentPrincipal, type Principal } from '../access/principal';
import { ChannelsService } from './channels.service';
import { ChannelDto, ChannelTestDto, channelView, CreateEmailChannelDto, CreateWhatsAppChannelDto, UpdateChannelDto } from './dto/channel.dto';

@ApiTags('channels')
@Controller('api/v1/channels')
export class ChannelsController {
  constructor(private readonly channels: ChannelsService) {}

  @Get()
  @RequirePermission()
  @ApiOperation({ summary: 'The channels (inboxes) the caller sees', description: 'Every channel of the account with `channels:manage`; otherwise the channels the caller is a member of (as Chatwoot shows agents their inboxes). Credentials are never returned.' })
  @ApiOkEnvelope(ChannelDto, { isArray: true })
  async list(@CurrentPrincipal() p: Principal) {
    return (await this.channels.listFor(p)).map(channelView);
  }

  @Get(':id')
  @RequirePermission()
  @ApiOperation({ summary: 'A channel', description: '404 `CHANNEL_NOT_FOUND` for a channel of another account, or one the caller neither manages (`channels:manage`) nor is a member of.' })
  @ApiOkEnvelope(ChannelDto)
  @ApiErrorAnswer(404, '`CHANNEL_NOT_FOUND`: no such channel in the caller\'s account (ids of another account answer 404 too), or one the caller (without channels:manage) is no member of')
  async get(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return channelView(await this.channels.getFor(p, id));
  }

  @Post('whatsapp')
  @RequirePermission('channels:manage')
  @ApiOperation({
    summary: 'Connect a WhatsApp Cloud API number',
    description: 'Credentials are stored encrypted (AES-256-GCM, CONVERSATION_ENCRYPTION_KEY) and never returned. Configure `webhook_path` (behind your public origin) and `verify_token` as the callback at the provider.',
  })
  @ApiOkEnvelope(ChannelDto, { status: 201 })
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateWhatsAppChannelDto) {
    return channelView(await this.channels.createWhatsApp(p.accountId, body));
  }

  @Post('email')
  @RequirePermission('channels:manage')
  @ApiOperation({
    summary: 'Connect an email inbox (IMAP in, SMTP out)',
    description:
      'The inbox address and its two servers; passwords are stored encrypted (AES-256-GCM, CONVERSATION_ENCRYPTION_KEY) and never returned. ' +
      'The mailbox is polled every `CONVERSATION_IMAP_POLL_SECONDS` by one replica at a time, from a UIDVALIDITY/UID cursor (the first poll takes the mail of the day before the channel was connected on). ' +
      'A mail answering one of the channel’s mails (Message-ID in In-Reply-To or References) joins that conversation; any other opens a new one. Automatic replies and mail from the inbox’s own address open nothing (counted in `status.mailbox`). ' +
      'Attachments are stored and served at `download_path`. Agent replies go out through the SMTP server from the inbox address, with In-Reply-To and References of the thread.',
  })
  @ApiOkEnvelope(ChannelDto, { status: 201 })
  async createEmail(@CurrentPrincipal() p: Principal, @Body() body: CreateEmailChannelDto) {
    return channelView(await this.channels.createEmail(p.accountId, body));
  }

  @Post(':id/test')
  @HttpCode(200)
  @RequirePermission('channels:manage')
  @ApiOperation({
    summary: "Test an email channel's servers",
    description: 'Logs in to IMAP and opens the mailbox, connects and authenticates to SMTP (STARTTLS when offered); reads and sends nothing. Each server’s outcome with its error. 422 `CHANNEL_TEST_UNSUPPORTED` for WhatsApp channels.',
  })
  @ApiOkEnvelope(ChannelTestDto)
  @ApiErrorAnswer(404, '`CHANNEL_NOT_FOUND`: no such channel in the caller\'s account (ids of another account answer 404 too), or one the caller (without channels:manage) is no member of')
  @ApiErrorAnswer(422, '`CHANNEL_TEST_UNSUPPORTED`: a WhatsApp channel')
  async test(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return this.channels.test(p.accountId, id);
  }

  @Patch(':id')
  @RequirePermission('channels:manage')
  @ApiOperation({ summary: 'Update a channel: name, credentials, automatic assignment (members, cap, team)' })
  @ApiOkEnvelope(ChannelDto)
  @ApiErrorAnswer(404, '`CHANNEL_NOT_FOUND`: no such channel in the caller\'s account (ids of another account answer 404 too), or one the caller (without channels:manage) is no member of')
  async update(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateChannelDto) {
    return channelView(await this.channels.update(p.accountId, id, body));
  }
}
