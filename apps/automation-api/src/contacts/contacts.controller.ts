import { Body, Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountAuth, CurrentAccount } from '../accounts/account-key.guard';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { ErrorDto } from '../common/error.dto';
import { ContactsService } from './contacts.service';
import { ContactDto, ContactPageDto, ListContactsQueryDto, UpdateContactDto } from './dto/contact.dto';

@ApiTags('contacts')
@AccountAuth()
@Controller('api/v1/contacts')
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @Get()
  @ApiOperation({ summary: 'List contacts', description: 'Search, tag filter, cursor pagination (`next_cursor`), newest first.' })
  @ApiOkResponse({ type: ContactPageDto })
  @ApiBadRequestResponse({ type: ErrorDto })
  list(@CurrentAccount() account: AccountEntity, @Query() query: ListContactsQueryDto): Promise<ContactPageDto> {
    return this.contacts.list(account.id, query);
  }

  @Get(':ig_id')
  @ApiOperation({ summary: 'One contact' })
  @ApiOkResponse({ type: ContactDto })
  @ApiNotFoundResponse({ type: ErrorDto })
  get(@CurrentAccount() account: AccountEntity, @Param('ig_id') igId: string): Promise<ContactDto> {
    return this.contacts.get(account.id, igId);
  }

  @Patch(':ig_id')
  @ApiOperation({ summary: 'Change tags, notes or email of a contact', description: 'tags replaces the list; null clears notes or email.' })
  @ApiOkResponse({ type: ContactDto })
  @ApiBadRequestResponse({ type: ErrorDto })
  @ApiNotFoundResponse({ type: ErrorDto })
  update(@CurrentAccount() account: AccountEntity, @Param('ig_id') igId: string, @Body() body: UpdateContactDto): Promise<ContactDto> {
    return this.contacts.update(account.id, igId, body);
  }
}
