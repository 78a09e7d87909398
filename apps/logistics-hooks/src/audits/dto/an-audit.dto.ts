import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsNotEmpty, IsNumber, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';

export class ChargeDto {
  @ApiPropertyOptional({ example: 'Ocean freight' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  description?: string;

  @ApiPropertyOptional({ example: 1200 })
  @IsOptional()
  @IsNumber()
  amount?: number;

  @ApiPropertyOptional({ example: 'USD' })
  @IsOptional()
  @IsString()
  @MaxLength(3)
  currency?: string;
}

export class ArrivalNoticeDto {
  @ApiPropertyOptional({ description: '`freight` jobs need the telex release (else FINANCIAL_PENDING)', example: 'freight' })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  job_type?: string;

  @ApiPropertyOptional({ type: [String], example: ['MSCU1234566'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(20, { each: true })
  containers?: string[];

  @ApiPropertyOptional({ example: 'MEDUAB123456' })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  bill_of_lading?: string;

  @ApiPropertyOptional({ example: '987654321' })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  booking?: string;

  @ApiPropertyOptional({ example: 'Importadora del Centro SA de CV' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  consignee?: string;

  @ApiPropertyOptional({ example: '2026-11-29' })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  eta?: string;

  @ApiPropertyOptional({ description: 'Whether the carrier confirmed the telex release' })
  @IsOptional()
  @IsBoolean()
  telex_release?: boolean;

  @ApiPropertyOptional({ type: [ChargeDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => ChargeDto)
  charges?: ChargeDto[];
}

export class UpstreamCheckDto {
  @ApiProperty({ example: 'AMOUNTS_MATCH' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(80)
  name!: string;

  @ApiProperty({ description: 'A failed check with stop_processing makes the outcome EXCEPTION' })
  @IsBoolean()
  stop_processing!: boolean;

  @ApiPropertyOptional({ description: 'Absent: the check counts as failed' })
  @IsOptional()
  @IsBoolean()
  passed?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(500)
  message?: string;
}

export class AnAuditDto {
  @ApiPropertyOptional({ description: 'LOGISTICS_API_KEY (or the X-API-Key header)' })
  @IsOptional()
  @IsString()
  api_key?: string;

  @ApiProperty({ type: ArrivalNoticeDto, description: 'The parsed arrival notice' })
  @IsObject()
  @ValidateNested()
  @Type(() => ArrivalNoticeDto)
  notice!: ArrivalNoticeDto;

  @ApiPropertyOptional({ type: [UpstreamCheckDto], description: 'Checks already run upstream, merged with the service\'s own (same name: the upstream one counts)' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => UpstreamCheckDto)
  checks?: UpstreamCheckDto[];
}
