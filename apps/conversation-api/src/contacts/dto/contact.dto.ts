import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsEmail, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { PageQueryDto } from '../../common/pagination';
import { ConversationDto } from '../../conversations/dto/conversation.dto';
import type { StoredAttributeDefinition } from '../attribute-definitions.repository';
import { ATTRIBUTE_TYPES, type AttributeType } from '../attributes';
import type { Contact } from '../contacts.repository';

export class ContactDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ nullable: true, type: String }) name: string | null;
  @ApiProperty({ nullable: true, type: String }) email: string | null;
  @ApiProperty({ nullable: true, type: String, example: '+15550002222' }) phone: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Your own id for the contact' }) identifier: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, example: { plan: 'pro', seats: 3 }, description: 'Typed values of the account’s attribute definitions' })
  custom_attributes: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true }) additional_attributes: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export const contactView = (c: Contact): ContactDto => ({
  id: c.id,
  name: c.name,
  email: c.email,
  phone: c.phone,
  identifier: c.identifier,
  custom_attributes: c.customAttributes,
  additional_attributes: c.additionalAttributes,
  created_at: c.createdAt.toISOString(),
  updated_at: c.updatedAt.toISOString(),
});

export class ContactWithConversationsDto extends ContactDto {
  @ApiProperty({ type: [ConversationDto], description: 'The contact’s latest 50 conversations' }) conversations: ConversationDto[];
}

export class ListContactsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Search: name, email, phone, identifier and custom attribute values (case-insensitive, substring)' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  q?: string;
}

export class UpdateContactDto {
  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(200)
  name?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsEmail()
  @MaxLength(254)
  email?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @Matches(/^\+?[0-9 ()-]{5,24}$/, { message: 'phone must be a phone number' })
  phone?: string | null;
}

export class UpdateAttributesDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { plan: 'pro', renewal: '2026-05-01', vip: null },
    description: 'Merged into the contact’s attributes; each key must be defined (GET /api/v1/contacts/attributes) and its value of the defined type; null removes a key',
  })
  @IsObject()
  custom_attributes: Record<string, unknown>;
}

export class AttributeDefinitionDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'plan' }) key: string;
  @ApiProperty({ example: 'Plan' }) display_name: string;
  @ApiProperty({ enum: ATTRIBUTE_TYPES }) type: AttributeType;
  @ApiProperty({ type: [String], description: 'Allowed values of a `list` attribute' }) values: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export const attributeDefinitionView = (d: StoredAttributeDefinition): AttributeDefinitionDto => ({
  id: d.id,
  key: d.key,
  display_name: d.displayName,
  type: d.type,
  values: d.values,
  created_at: d.createdAt.toISOString(),
});

export class CreateAttributeDefinitionDto {
  @ApiProperty({ example: 'plan', pattern: '^[a-z][a-z0-9_]{0,49}$' })
  @Matches(/^[a-z][a-z0-9_]{0,49}$/, { message: 'key must be 1-50 lowercase letters, digits or _, starting with a letter' })
  key: string;

  @ApiProperty({ example: 'Plan' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  display_name: string;

  @ApiProperty({ enum: ATTRIBUTE_TYPES })
  @IsIn(ATTRIBUTE_TYPES)
  type: AttributeType;

  @ApiPropertyOptional({ type: [String], description: 'Required for `list`' })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  values?: string[];
}
