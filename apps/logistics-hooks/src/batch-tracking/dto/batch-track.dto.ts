import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsISO8601, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';

/** The DTO's ceiling; the configured cap (BATCH_TRACK_MAX_SHIPMENTS) is checked by the service. */
export const MAX_SHIPMENTS_ACCEPTED = 1000;

export class BatchShipmentDto {
  @ApiPropertyOptional({ description: 'Truck or unit name', example: 'TRK-104' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  unit?: string;

  @ApiPropertyOptional({ type: [String], example: ['MSCU1234566'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(40, { each: true })
  containers?: string[];

  @ApiPropertyOptional({
    description: 'The truck\'s position feed: answers JSON `{lat, lon, speed (km/h), recorded_at, driver, eta?, location?}`. Private and loopback addresses are never fetched (→ `not_found`).',
    example: 'https://gps.example.com/share/abc123',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  tracking_url?: string;

  @ApiPropertyOptional({ description: 'Planned arrival (ISO 8601)', example: '2026-11-28T18:00:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  eta?: string;
}

export class BatchTrackDto {
  @ApiPropertyOptional({ description: 'LOGISTICS_API_KEY (or the X-API-Key header)' })
  @IsOptional()
  @IsString()
  api_key?: string;

  @ApiProperty({ type: [BatchShipmentDto], description: 'At most BATCH_TRACK_MAX_SHIPMENTS (default 200)' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_SHIPMENTS_ACCEPTED)
  @ValidateNested({ each: true })
  @Type(() => BatchShipmentDto)
  shipments!: BatchShipmentDto[];
}
