import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { KNOWN_CARRIERS } from '../ocean-references';

export const REFERENCE_TYPES = ['container', 'bill_of_lading', 'booking'] as const;

export class OceanTrackDto {
  @ApiPropertyOptional({ description: 'LOGISTICS_API_KEY (or the X-API-Key header)' })
  @IsOptional()
  @IsString()
  api_key?: string;

  @ApiProperty({ description: 'Container (ISO 6346, check digit verified), bill of lading or booking number', example: 'MAEU7654320' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(40)
  tracking_number!: string;

  @ApiPropertyOptional({
    description: `Carrier code (case and separators ignored; \`CMA-CGM\`, \`Hapag-Lloyd\` accepted): ${KNOWN_CARRIERS.join(', ')}. Default: detected from the container's owner prefix or the bill of lading's SCAC prefix.`,
    example: 'MAERSK',
  })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  carrier?: string;

  @ApiPropertyOptional({
    enum: REFERENCE_TYPES,
    description: 'Default: a container-shaped number is a container, one starting with a carrier SCAC code (MAEU, MEDU, ONEY, …) a bill of lading, anything else a booking.',
  })
  @IsOptional()
  @IsIn(REFERENCE_TYPES)
  reference_type?: (typeof REFERENCE_TYPES)[number];
}
