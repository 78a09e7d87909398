import { ReferencesDto } from '../../common/dto/references.dto';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CursorPageDto } from '../../common/dto/cursor-page.dto';
import { idPattern } from '../../common/ids';
import type { OptInState } from '../contact';

const OPT_IN_STATES: OptInState[] = ['pending', 'confirmed'];

export const CONTACT_ID = { pattern: idPattern('cnt'), example: 'cnt_0a1b2c3d4e5f6g7h8i9j' };

export class ContactDto {
  @ApiProperty(CONTACT_ID)
  id: string;

  @ApiProperty({ example: 'ada@example.com', description: 'Lower-case, unique in the project' })
  email: string;

  @ApiProperty({ description: 'Receives marketing email (campaigns, workflows); false while a double opt-in is pending' })
  subscribed: boolean;

  @ApiProperty({
    enum: OPT_IN_STATES,
    nullable: true,
    description:
      'Double opt-in: `pending` (a confirmation mail was sent; not subscribed until its link is confirmed), `confirmed` (subscribed through a confirmed link, or attested with `confirmed: true`), ' +
      'null (never asked: single opt-in, or unsubscribed since; a new signup asks again)',
  })
  optIn: OptInState | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the contact last confirmed its subscription (kept after an unsubscribe as the record of that consent)' })
  confirmedAt: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { plan: 'pro', seats: 3 }, description: 'Custom fields (`{}` when none)' })
  data: Record<string, unknown>;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

class UpsertMetaDto {
  @ApiProperty({ description: 'The contact was created (status 201)' })
  isNew: boolean;

  @ApiProperty({ description: 'An existing contact was updated (status 200); always `!isNew`' })
  isUpdate: boolean;
}

export class UpsertedContactDto extends ContactDto {
  @ApiProperty({ type: UpsertMetaDto })
  _meta: UpsertMetaDto;
}

export class ContactPageDto extends CursorPageDto(ContactDto) {}

class FoundContactDto {
  @ApiProperty(CONTACT_ID)
  id: string;

  @ApiProperty()
  email: string;

  @ApiProperty()
  subscribed: boolean;
}

export class ContactLookupDto {
  @ApiProperty({ type: [FoundContactDto], description: 'Contacts of the project with one of the emails, by email' })
  found: FoundContactDto[];

  @ApiProperty({ type: [String], description: 'The other emails (lower-cased, without duplicates)' })
  notFound: string[];
}

export const FIELD_TYPES = ['string', 'number', 'boolean', 'date', 'array', 'object'] as const;

class ContactFieldDto {
  @ApiProperty({ example: 'plan', description: 'Standard field name, or the custom field key' })
  field: string;

  @ApiProperty({ example: 'data.plan', description: '`email`, `subscribed`, `createdAt`, `updatedAt` for standard fields, `data.<key>` for custom ones' })
  path: string;

  @ApiProperty({ description: 'A standard field (every contact has it)' })
  standard: boolean;

  @ApiProperty({ enum: FIELD_TYPES, description: 'The most frequent JSON type of the values; `date` when every string value is an ISO 8601 date' })
  type: (typeof FIELD_TYPES)[number];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 1 },
    example: { string: 40, number: 2 },
    description: 'Custom fields only: values per JSON type (string, number, boolean, array, object)',
  })
  types?: Record<string, number>;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Contacts holding the field' })
  count: number;

  @ApiProperty({ minimum: 0, maximum: 100, example: 42.5, description: 'Percent of the contacts holding the field, one decimal' })
  coverage: number;
}

export class ContactFieldsDto {
  @ApiProperty({ type: 'integer', minimum: 0 })
  totalContacts: number;

  @ApiProperty({ type: [ContactFieldDto], description: 'The 4 standard fields first, then custom fields by count' })
  fields: ContactFieldDto[];
}

class FieldValueDto {
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'object', additionalProperties: true }, { type: 'array', items: {} }],
    example: 'pro',
    description: 'A stored value, as stored (any JSON type)',
  })
  value: unknown;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Contacts holding it' })
  count: number;
}

export class FieldValuesDto {
  @ApiProperty({ example: 'plan', description: 'The custom field key (without `data.`)' })
  field: string;

  @ApiProperty({ type: [FieldValueDto], description: 'Most frequent first, at most `limit`' })
  values: FieldValueDto[];
}

export class FieldUsageDto {
  @ApiProperty({ example: 'plan' })
  field: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Contacts holding the field' })
  contacts: number;

  @ApiProperty({ description: 'Held by a contact or referenced anywhere' })
  inUse: boolean;

  @ApiProperty({ type: ReferencesDto, description: 'Where the field is referenced' })
  references: ReferencesDto;
}

export class FieldDeletedDto {
  @ApiProperty({ example: 'plan' })
  field: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Contacts that held the field (0 when none did)' })
  contactsUpdated: number;
}
