import { Body, Controller, Get, Param, ParseUUIDPipe, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope } from '@platform/envelopes';
import { RequirePermission } from '../auth/access.decorators';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { ChannelsService } from './channels.service';
import { ChannelDto, channelView, CreateWhatsAppChannelDto, UpdateChannelDto } from './dto/channel.dto';

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

  @Patch(':id')
  @RequirePermission('channels:manage')
  @ApiOperation({ summary: 'Update a channel: name, credentials, automatic assignment (members, cap, team)' })
  @ApiOkEnvelope(ChannelDto)
  async update(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateChannelDto) {
    return channelView(await this.channels.update(p.accountId, id, body));
  }
}
