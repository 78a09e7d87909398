import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, MaxLength } from 'class-validator';

export class EmailReportDto {
  @ApiPropertyOptional({ description: 'LOGISTICS_API_KEY (or the X-API-Key header)' })
  @IsOptional()
  @IsString()
  api_key?: string;

  @ApiPropertyOptional({ description: 'Recipients, comma-separated (at most 20 with cc). Empty or absent: the HTML is returned and nothing is sent.', example: 'ops@client.example' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  to?: string;

  @ApiPropertyOptional({ description: 'Copy recipients, comma-separated', example: 'boss@client.example' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  cc?: string;

  @ApiPropertyOptional({ description: 'Sender: an address REPORT_FROM_ALLOWED permits (an address or an `@domain`); default REPORT_FROM_DEFAULT', example: 'reports@logistics.example' })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  from?: string;

  @ApiPropertyOptional({ description: 'Default: "Fleet status: N trucks, M need attention"', example: 'Morning fleet report' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  subject?: string;

  @ApiProperty({ description: 'The batch tracker\'s output (`POST /{prefix}-batch-track`): `{totals, shipments}`', type: Object })
  @IsObject()
  data!: Record<string, unknown>;
}
