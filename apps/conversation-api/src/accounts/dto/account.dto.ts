import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import type { AccountSettings } from '../accounts.repository';
import type { BusinessHours, DayHours } from '../business-hours';

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const HHMM_OR_24 = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;

export class DayHoursDto implements DayHours {
  @ApiProperty({ example: '09:00', description: 'Local time, 24-hour clock' })
  @Matches(HHMM, { message: 'open must be HH:MM (00:00–23:59)' })
  open: string;

  @ApiProperty({ example: '17:00', description: 'Local time after `open`; `24:00` for the end of the day (exclusive)' })
  @Matches(HHMM_OR_24, { message: 'close must be HH:MM (00:01–24:00)' })
  close: string;
}

const day = () => (target: object, key: string) => {
  ApiPropertyOptional({ type: DayHoursDto, nullable: true, description: 'null or absent: closed' })(target, key);
  IsOptional()(target, key);
  ValidateIf((_o: unknown, v: unknown) => v !== null)(target, key);
  IsObject()(target, key);
  ValidateNested()(target, key);
  Type(() => DayHoursDto)(target, key);
};

export class BusinessHoursDto implements BusinessHours {
  @day() monday?: DayHoursDto | null;
  @day() tuesday?: DayHoursDto | null;
  @day() wednesday?: DayHoursDto | null;
  @day() thursday?: DayHoursDto | null;
  @day() friday?: DayHoursDto | null;
  @day() saturday?: DayHoursDto | null;
  @day() sunday?: DayHoursDto | null;
}

export class OutOfOfficeDto {
  @ApiPropertyOptional({ description: 'Whether recipes’ `out_of_office_reply` action sends the message' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ nullable: true, type: String, example: 'We are closed; we answer from 9:00 tomorrow.', description: 'Canned-response variables such as {{contact.first_name}} are filled in' })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  message?: string | null;
}

export class UpdateAccountDto {
  @ApiPropertyOptional({ example: 'Acme' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ example: 'Europe/Berlin', description: 'IANA time zone of the business hours' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  time_zone?: string;

  @ApiPropertyOptional({ type: BusinessHoursDto, nullable: true, description: 'The complete week (replaces the current hours); a missing day is closed; null removes the hours (always open)' })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsObject()
  @ValidateNested()
  @Type(() => BusinessHoursDto)
  business_hours?: BusinessHoursDto | null;

  @ApiPropertyOptional({ type: OutOfOfficeDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => OutOfOfficeDto)
  out_of_office?: OutOfOfficeDto;
}

export class AccountDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'Europe/Berlin' }) time_zone: string;
  @ApiProperty({ type: BusinessHoursDto, nullable: true, description: 'null: no hours set (always open)' }) business_hours: BusinessHours | null;
  @ApiProperty({ type: OutOfOfficeDto }) out_of_office: { enabled: boolean; message: string | null };
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export const accountView = (a: AccountSettings): AccountDto => ({
  id: a.id,
  name: a.name,
  time_zone: a.timeZone,
  business_hours: a.businessHours,
  out_of_office: a.outOfOffice,
  updated_at: a.updatedAt.toISOString(),
});
