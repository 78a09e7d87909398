import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConflictResponse, ApiConsumes, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { ApiError } from '@platform/errors';
import { BodyLimit } from '@platform/platform';
import type { Request, Response } from 'express';
import { ApiKeyAccess } from '../access/api-key.guard';
import { ApExpectationsDto, InvoiceUploadDto } from './dto/invoice-requests.dto';
import { InvoicesService } from './invoices.service';

const PROCESS_DESCRIPTION = [
  'An accounts-payable invoice as a PDF: multipart `file` (with `api_key` as a form field or `X-API-Key`) or JSON `{api_key, file_base64, filename?}`;',
  'at most INVOICE_MAX_BYTES (default 10 MB; 413 `FILE_TOO_LARGE`). Text is extracted with pdf-parse; fields parsed: supplier, invoice_number,',
  'invoice_date, due_date, currency, subtotal, tax, total, shipment_ref. **Complete** only with supplier, invoice_number, invoice_date, currency and total.',
  '',
  '**Checks** (against `POST /ap-expectations` by shipment_ref, recorded payments and earlier invoices): DUPLICATE_INVOICE (block: same supplier,',
  'case and punctuation ignored, and number already processed successfully), ALREADY_PAID (block), AMOUNT_TOLERANCE (abs(total − expected) /',
  'expected: block above 25 %, warn from 10 % to 25 %), CURRENCY_MISMATCH (warn), TAX_IVA (warn when tax / subtotal is not INVOICE_TAX_RATE_PCT',
  '(16) ± 0.5 points or subtotal + tax ≠ total ± 0.01), DATE_BEFORE_DEPARTURE (warn), DATE_TOO_OLD (warn: more than 180 days after arrival).',
  'A check without its inputs is `skipped`.',
  '',
  '**Answers** (every processed invoice is stored): Success 200 `{success: true, invoice_id, invoice, checks, warnings}`; Blocked 409',
  '`{success: false, blocked: true, invoice_id, invoice, checks, reasons, warnings}`; Rejected 422 `{success: false, rejected: true, invoice_id,',
  'reason, missing_fields, invoice}` for an unreadable PDF (or a file that is not one) or an incomplete extraction.',
].join('\n');

@ApiTags('invoices')
@Controller()
export class InvoicesController {
  constructor(private readonly invoices: InvoicesService) {}

  @Post('ap-invoice-process')
  // A JSON body carries the PDF base64-encoded (× 4/3): 16 MB holds INVOICE_MAX_BYTES' default of 10 MB.
  @BodyLimit('16mb')
  @HttpCode(200)
  @ApiKeyAccess()
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiBody({ type: InvoiceUploadDto })
  @ApiOperation({ summary: 'Process an accounts-payable invoice PDF', description: PROCESS_DESCRIPTION })
  @ApiOkResponse({ description: 'Success' })
  @ApiConflictResponse({ description: 'Blocked' })
  @ApiUnprocessableEntityResponse({ description: 'Rejected, or `VALIDATION_ERROR`' })
  @ApiPayloadTooLargeResponse({ description: '`FILE_TOO_LARGE` (the PDF is over INVOICE_MAX_BYTES); `PAYLOAD_TOO_LARGE` (a JSON body over 16 MB)' })
  async process(@Req() req: Request, @Body() dto: InvoiceUploadDto, @Res({ passthrough: true }) res: Response): Promise<Record<string, unknown>> {
    const file = (req as Request & { file?: { buffer: Buffer } }).file?.buffer ?? (dto.file_base64 !== undefined ? Buffer.from(dto.file_base64, 'base64') : null);
    if (!file) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'No invoice was sent', {
        errors: [{ field: 'file', message: 'send the multipart file field file, or file_base64 in JSON', code: 'isDefined' }],
        suggestion: 'Send the PDF as multipart/form-data field file, or JSON {"file_base64": "…"}.',
      });
    }
    const r = await this.invoices.process(file);
    if (r.kind === 'success') return { success: true, invoice_id: r.id, invoice: r.fields, checks: r.checks, warnings: r.warnings };
    if (r.kind === 'blocked') {
      res.status(409);
      return { success: false, blocked: true, invoice_id: r.id, invoice: r.fields, checks: r.checks, reasons: r.reasons, warnings: r.warnings };
    }
    res.status(422);
    return { success: false, rejected: true, invoice_id: r.id, reason: r.reason, missing_fields: r.missing_fields, invoice: r.fields };
  }

  @Post('ap-expectations')
  @HttpCode(200)
  @ApiKeyAccess()
  @ApiOperation({
    summary: 'Ingest what the invoice checks compare against',
    description:
      '`expectations`: per shipment reference the expected invoice total and currency, departure and arrival dates (merged: fields sent replace the stored ones). ' +
      '`payments`: invoices already paid (supplier, invoice_number, paid_at). → `{success, expectations, payments}` (rows written).',
  })
  @ApiOkResponse({ description: '`{success, expectations, payments}`: rows written' })
  async ingest(@Body() dto: ApExpectationsDto): Promise<Record<string, unknown>> {
    return { success: true, ...(await this.invoices.ingest(dto.expectations ?? [], dto.payments ?? [])) };
  }
}
