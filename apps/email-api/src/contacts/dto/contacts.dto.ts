import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsEmail, IsInt, Max, Min, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { CursorQueryDto } from '../../common/list-query.dto';

const trimLower = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value);

export class ListContactsQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ description: 'Case-insensitive substring of the email' })
  @IsOptional()
  @IsString()
  @MaxLength(254)
  search?: string;
}

export class UpsertContactDto {
  @ApiProperty({ example: 'ada@example.com' })
  @Transform(trimLower)
  @IsEmail()
  @MaxLength(254)
  email: string;

  @ApiPropertyOptional({
    description:
      'New contacts default to true; existing ones change only when given. With double opt-in on (the project\'s `doubleOptIn`), true (or the default of a new contact) ' +
      'does not subscribe an unsubscribed contact: it becomes `optIn: pending` and gets a confirmation mail (at most one a day); a subscribed contact stays as it is',
  })
  @IsOptional()
  @IsBoolean()
  subscribed?: boolean;

  @ApiPropertyOptional({
    description:
      'Double opt-in only (secret key or dashboard session; the public key never reaches this route): true attests that the address already confirmed its consent elsewhere ' +
      '(e.g. a list moved from a provider with its own double opt-in), so the contact is subscribed at once with `optIn: confirmed` and no confirmation mail. Ignored with `subscribed: false`',
  })
  @IsOptional()
  @IsBoolean()
  confirmed?: boolean;

  @ApiPropertyOptional({ description: 'Custom fields, merged: null removes a key, "" is ignored', example: { plan: 'pro', seats: 3 } })
  @IsOptional()
  @IsObject()
  data?: Record<string, unknown>;
}

export class UpdateContactDto {
  @ApiPropertyOptional()
  @IsOptional()
  @Transform(trimLower)
  @IsEmail()
  @MaxLength(254)
  email?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  subscribed?: boolean;

  @ApiPropertyOptional({ description: 'Merged like POST /contacts' })
  @IsOptional()
  @IsObject()
  data?: Record<string, unknown>;
}

export class LookupContactsDto {
  @ApiProperty({ type: [String], maxItems: 500 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @Transform(({ value }) => (Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v)) : value))
  @IsEmail({}, { each: true })
  emails: string[];
}

export class BulkContactsDto {
  @ApiProperty({ type: [String], maxItems: 1000, example: ['cnt_0a1b2c…'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @Matches(/^cnt_[0-9a-z]{1,64}$/, { each: true, message: 'each contactIds entry must be a contact id (cnt_…)' })
  contactIds: string[];
}

export class FieldValuesQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 500, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;
}
