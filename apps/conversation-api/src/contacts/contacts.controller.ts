import { Body, Controller, Delete, Get, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope, ApiPageEnvelope } from '@platform/envelopes';
import { RequirePermission, ApiErrorAnswer } from '../access/access.decorators';
import { CurrentPrincipal, type Principal } from '../access/principal';
import { DeletedDto } from '../common/deleted.dto';
import { Deprecated } from '../common/deprecated.decorator';
import { pageOf } from '../common/pagination';
import { conversationView } from '../conversations/dto/conversation.dto';
import { ContactWithConversations } from './contact-with-conversations';
import { ContactsService } from './contacts.service';
import {
  AttributeDefinitionDto,
  attributeDefinitionView,
  ContactDto,
  contactView,
  ContactWithConversationsDto,
  CreateAttributeDefinitionDto,
  ListContactsQueryDto,
  UpdateAttributesDto,
  UpdateContactDto,
} from './dto/contact.dto';

@ApiTags('contacts')
@Controller('api/v1/contacts')
export class ContactsController {
  constructor(
    private readonly contacts: ContactsService,
    private readonly contactWithConversations: ContactWithConversations,
  ) {}

  @Get()
  @RequirePermission('contacts:read')
  @ApiOperation({ summary: 'List contacts, or search them with `q`', description: 'Newest first.' })
  @ApiPageEnvelope(ContactDto)
  async list(@CurrentPrincipal() p: Principal, @Query() q: ListContactsQueryDto) {
    const { page, limit, offset } = pageOf(q);
    const { items, total } = await this.contacts.list(p.accountId, q.q, limit, offset);
    return { items: items.map(contactView), total, page, limit };
  }

  @Deprecated({ since: '2026-11-01T00:00:00Z', sunset: '2027-06-01T00:00:00Z', successor: '/api/v1/contacts' })
  @Get('search')
  @RequirePermission('contacts:read')
  @ApiOperation({ summary: 'Search contacts (deprecated: use GET /api/v1/contacts?q=)' })
  @ApiPageEnvelope(ContactDto)
  search(@CurrentPrincipal() p: Principal, @Query() q: ListContactsQueryDto) {
    return this.list(p, q);
  }

  @Get('attributes')
  @RequirePermission('contacts:read')
  @ApiOperation({ summary: 'The custom attribute definitions of the account' })
  @ApiOkEnvelope(AttributeDefinitionDto, { isArray: true })
  async definitions(@CurrentPrincipal() p: Principal) {
    return (await this.contacts.listDefinitions(p.accountId)).map(attributeDefinitionView);
  }

  @Post('attributes')
  @RequirePermission('attributes:manage')
  @ApiOperation({ summary: 'Define a custom attribute', description: 'Types: text, number, boolean, date (ISO 8601), list (one of `values`), link (http(s) URL). 409 `ATTRIBUTE_KEY_TAKEN`.' })
  @ApiOkEnvelope(AttributeDefinitionDto, { status: 201 })
  async define(@CurrentPrincipal() p: Principal, @Body() body: CreateAttributeDefinitionDto) {
    return attributeDefinitionView(await this.contacts.define(p.accountId, body));
  }

  @Delete('attributes/:id')
  @RequirePermission('attributes:manage')
  @ApiOperation({ summary: 'Remove an attribute definition (stored values stay until updated)' })
  @ApiOkEnvelope(DeletedDto)
  @ApiErrorAnswer(404, '`ATTRIBUTE_NOT_FOUND`: no such attribute definition in the caller\'s account (ids of another account answer 404 too)')
  undefine(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return this.contacts.undefine(p.accountId, id);
  }

  @Get(':id')
  @RequirePermission('contacts:read')
  @ApiOperation({ summary: 'A contact with its conversations' })
  @ApiOkEnvelope(ContactWithConversationsDto)
  @ApiErrorAnswer(404, '`CONTACT_NOT_FOUND`: no such contact in the caller\'s account (ids of another account answer 404 too)')
  async get(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    const { contact, conversations } = await this.contactWithConversations.execute(p, id);
    return { ...contactView(contact), conversations: conversations.map(conversationView) };
  }

  @Patch(':id')
  @RequirePermission('contacts:write')
  @ApiOperation({ summary: 'Update name, email or phone' })
  @ApiOkEnvelope(ContactDto)
  @ApiErrorAnswer(404, '`CONTACT_NOT_FOUND`: no such contact in the caller\'s account (ids of another account answer 404 too)')
  async update(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateContactDto) {
    return contactView(await this.contacts.update(p.accountId, id, body));
  }

  @Patch(':id/attributes')
  @RequirePermission('contacts:write')
  @ApiOperation({ summary: 'Update custom attributes', description: '422 `VALIDATION_ERROR` naming each undefined key or value of the wrong type.' })
  @ApiOkEnvelope(ContactDto)
  @ApiErrorAnswer(404, '`CONTACT_NOT_FOUND`: no such contact in the caller\'s account (ids of another account answer 404 too)')
  async attributes(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateAttributesDto) {
    return contactView(await this.contacts.updateAttributes(p.accountId, id, body.custom_attributes));
  }
}
