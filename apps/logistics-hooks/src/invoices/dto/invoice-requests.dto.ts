import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsISO8601, IsNotEmpty, IsNumber, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';

/** The largest amount the ledger's numeric(14, 2) columns hold. */
export const MAX_AMOUNT = 999_999_999_999.99;

export class InvoiceUploadDto {
  @ApiPropertyOptional({ description: 'LOGISTICS_API_KEY (a form field of the multipart body, a JSON field, or the X-API-Key header)' })
  @IsOptional()
  @IsString()
  api_key?: string;

  @ApiPropertyOptional({ description: 'JSON bodies: the PDF, base64-encoded (multipart bodies send it as the file field `file`)' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9+/\r\n]*={0,2}\s*$/, { message: 'file_base64 must be base64' })
  file_base64?: string;

  @ApiPropertyOptional({ description: 'The file name, kept for the record', example: 'INV-2026-0042.pdf' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  filename?: string;

  @ApiPropertyOptional({ type: 'string', format: 'binary', description: 'Multipart bodies: the PDF' })
  file?: unknown;
}

const ISO_DATE = { strict: true } as const;

export class ExpectationDto {
  @ApiProperty({ description: 'Container, bill of lading or booking number the invoice will name', example: 'MSCU1234566' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(40)
  shipment_ref!: string;

  @ApiPropertyOptional({ example: 'Transportes del Norte SA de CV' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  supplier?: string;

  @ApiPropertyOptional({ description: 'Expected invoice total (AMOUNT_TOLERANCE compares against it), 0.01 to 999,999,999,999.99', example: 11600, minimum: 0.01, maximum: MAX_AMOUNT })
  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 2 })
  @Min(0.01)
  @Max(MAX_AMOUNT)
  expected_amount?: number;

  @ApiPropertyOptional({ example: 'MXN' })
  @IsOptional()
  @IsIn(['USD', 'MXN', 'EUR', 'CAD', 'GBP', 'CNY', 'usd', 'mxn', 'eur', 'cad', 'gbp', 'cny'])
  currency?: string;

  @ApiPropertyOptional({ example: '2026-11-01' })
  @IsOptional()
  @IsISO8601(ISO_DATE)
  departure_date?: string;

  @ApiPropertyOptional({ example: '2026-11-20' })
  @IsOptional()
  @IsISO8601(ISO_DATE)
  arrival_date?: string;
}

export class PaymentDto {
  @ApiProperty({ example: 'Transportes del Norte SA de CV' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  supplier!: string;

  @ApiProperty({ example: 'INV-2026-0042' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(40)
  invoice_number!: string;

  @ApiPropertyOptional({ description: 'The amount paid, 0 to 999,999,999,999.99', example: 11600, minimum: 0, maximum: MAX_AMOUNT })
  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 2 })
  @Min(0)
  @Max(MAX_AMOUNT)
  amount?: number;

  @ApiProperty({ example: '2026-11-10' })
  @IsISO8601(ISO_DATE)
  paid_at!: string;
}

export class ApExpectationsDto {
  @ApiPropertyOptional({ description: 'LOGISTICS_API_KEY (or the X-API-Key header)' })
  @IsOptional()
  @IsString()
  api_key?: string;

  @ApiPropertyOptional({ type: [ExpectationDto], description: 'Merged by shipment_ref (a field sent replaces the stored one; absent fields stay)' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => ExpectationDto)
  expectations?: ExpectationDto[];

  @ApiPropertyOptional({ type: [PaymentDto], description: 'Stored by supplier (case and punctuation ignored) and invoice number' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => PaymentDto)
  payments?: PaymentDto[];
}
