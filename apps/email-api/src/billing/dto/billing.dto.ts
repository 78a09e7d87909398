import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { MAX_BILLING_LIMIT } from '../billing';

const HTTP_URL = /^https?:\/\/[^\s/]+(\/\S*)?$/;
const LIMIT_DOC = { type: 'integer', nullable: true, minimum: 1, maximum: MAX_BILLING_LIMIT } as const;
const PLANS = ['free', 'active', 'past_due', 'canceled'];

/** One category's cap: a positive integer, or null for unlimited (required: PUT replaces all four). */
function Cap(what: string): PropertyDecorator {
  return (target: object, key: string | symbol) => {
    ApiProperty({ ...LIMIT_DOC, description: `Mails a calendar month (UTC) ${what}; null: unlimited`, example: 10_000 })(target, key);
    IsDefined({ message: `${String(key)} is required (a positive integer, or null for unlimited)` })(target, key);
    ValidateIf((o: Record<string, unknown>) => o[key as string] !== null)(target, key);
    IsInt()(target, key);
    Min(1)(target, key);
    Max(MAX_BILLING_LIMIT)(target, key);
  };
}

/** PUT /users/@me/projects/:id/billing-limits */
export class BillingLimitsDto {
  @Cap('sent by workflow steps')
  workflows: number | null;

  @Cap('of campaigns (and their test copies)')
  campaigns: number | null;

  @Cap('sent through POST /v1/send')
  transactional: number | null;

  @Cap('received for the project\'s domains')
  inbound: number | null;
}

export class BillingLimitsViewDto {
  @ApiProperty({ type: BillingLimitsDto, description: 'The project\'s own caps' })
  limits: BillingLimitsDto;

  @ApiProperty({ enum: PLANS, description: '`free` until a paid subscription; `active` while paid; `past_due` after a failed payment and `canceled` after the subscription ended (both disable the project)' })
  plan: string;

  @ApiProperty({ ...LIMIT_DOC, description: 'The plan\'s monthly allowance per category (BILLING_FREE_LIMIT while Stripe is configured and the plan is not `active`); null: none. The cap that applies is the lower of it and the project\'s own.' })
  planAllowance: number | null;
}

export class CategoryConsumptionDto {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Mails counted this month (FAILED, CANCELLED and SUPPRESSED mail is not counted)' })
  used: number;

  @ApiProperty({ ...LIMIT_DOC, description: 'The cap that applies (the lower of the project\'s own and the plan allowance); null: unlimited' })
  limit: number | null;

  @ApiProperty({ type: 'integer', nullable: true, minimum: 0, description: 'What is left; null: unlimited' })
  remaining: number | null;

  @ApiProperty({ type: 'number', nullable: true, minimum: 0, maximum: 1, description: 'used / limit (0 to 1, 4 decimals); null: unlimited' })
  share: number | null;

  @ApiProperty({ description: 'At least 80 % of the cap is used' })
  warning: boolean;

  @ApiProperty({ description: 'The cap is used up: sends of this category are refused (429 BILLING_LIMIT_REACHED) until `resetsAt`' })
  reached: boolean;
}

export class CategoriesConsumptionDto {
  @ApiProperty({ type: CategoryConsumptionDto })
  workflows: CategoryConsumptionDto;

  @ApiProperty({ type: CategoryConsumptionDto })
  campaigns: CategoryConsumptionDto;

  @ApiProperty({ type: CategoryConsumptionDto })
  transactional: CategoryConsumptionDto;

  @ApiProperty({ type: CategoryConsumptionDto })
  inbound: CategoryConsumptionDto;
}

export class BillingConsumptionDto {
  @ApiProperty({ example: '2026-11', pattern: '^\\d{4}-\\d{2}$', description: 'The calendar month (UTC) counted' })
  month: string;

  @ApiProperty({ format: 'date-time', description: 'First instant of the month, UTC' })
  periodStart: string;

  @ApiProperty({ format: 'date-time', description: 'When the counters reset: the first instant of the next month, UTC' })
  resetsAt: string;

  @ApiProperty({ enum: PLANS })
  plan: string;

  @ApiProperty({ description: 'Some category is at 80 % of its cap or more' })
  warning: boolean;

  @ApiProperty({ type: CategoriesConsumptionDto })
  categories: CategoriesConsumptionDto;
}

export class CheckoutDto {
  @ApiPropertyOptional({ description: 'Where Stripe sends the browser after payment; default `<DASHBOARD_URL>?billing=success&project=<id>`', example: 'https://app.example.com/settings/billing?done=1' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  @Matches(HTTP_URL, { message: 'successUrl must be an http(s) URL' })
  successUrl?: string;

  @ApiPropertyOptional({ description: 'Where Stripe sends the browser when the buyer goes back; default `<DASHBOARD_URL>?billing=cancelled&project=<id>`' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  @Matches(HTTP_URL, { message: 'cancelUrl must be an http(s) URL' })
  cancelUrl?: string;
}

export class PortalDto {
  @ApiPropertyOptional({ description: 'Where the portal\'s "return" link leads; default DASHBOARD_URL (else PUBLIC_BASE_URL)' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  @Matches(HTTP_URL, { message: 'returnUrl must be an http(s) URL' })
  returnUrl?: string;
}

export class CheckoutSessionDto {
  @ApiProperty({ example: 'cs_test_a1b2c3', description: 'The Stripe Checkout Session id' })
  id: string;

  @ApiProperty({ description: 'Send the browser here to pay' })
  url: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the session expires (Stripe: 24 hours)' })
  expiresAt: string | null;

  @ApiProperty({ example: 'cus_NffrFeUfNV2Hib', description: 'The project\'s Stripe customer (created at the first checkout, then kept)' })
  customerId: string;
}

export class PortalSessionDto {
  @ApiProperty({ example: 'bps_1MqjB8LkdIwHu7ix' })
  id: string;

  @ApiProperty({ description: 'Send the browser here to manage the subscription, payment methods and invoices' })
  url: string;
}

export class InvoicesQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 10 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `cursor` of the previous page (an invoice id)', example: 'in_1MtHbELkdIwHu7ixl4OzzPMv' })
  @IsOptional()
  @IsString()
  @Matches(/^in_[A-Za-z0-9_]{1,250}$/, { message: 'cursor must be an invoice id (in_…)' })
  cursor?: string;
}

export class InvoiceDto {
  @ApiProperty({ example: 'in_1MtHbELkdIwHu7ixl4OzzPMv' })
  id: string;

  @ApiProperty({ type: String, nullable: true, example: 'A1B2C3D4-0001' })
  number: string | null;

  @ApiProperty({ type: String, nullable: true, enum: ['draft', 'open', 'paid', 'uncollectible', 'void'] })
  status: string | null;

  @ApiProperty({ example: 'usd', description: 'ISO currency code, lowercase' })
  currency: string;

  @ApiProperty({ type: 'integer', description: 'In the currency\'s smallest unit (cents)' })
  amountDue: number;

  @ApiProperty({ type: 'integer' })
  amountPaid: number;

  @ApiProperty({ type: 'integer' })
  total: number;

  @ApiProperty({ format: 'date-time' })
  created: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  periodStart: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  periodEnd: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Stripe\'s page of the invoice' })
  hostedInvoiceUrl: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The PDF' })
  invoicePdf: string | null;
}

export class InvoicePageDto {
  @ApiProperty({ type: InvoiceDto, isArray: true, description: 'Newest first' })
  data: InvoiceDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last' })
  cursor: string | null;

  @ApiProperty()
  hasMore: boolean;
}

export class StripeWebhookAnswerDto {
  @ApiProperty({ enum: [true] })
  received: true;

  @ApiProperty({ example: 'evt_1NG8Du2eZvKYlo2CUI79vXWy' })
  eventId: string;

  @ApiProperty({ example: 'invoice.paid' })
  type: string;

  @ApiProperty({ description: 'This event id was handled before: nothing was done again' })
  duplicate: boolean;

  @ApiProperty({ enum: ['plan_active', 'plan_past_due', 'plan_canceled', 'ignored'] })
  outcome: string;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The project of the event\'s customer' })
  projectId: string | null;
}
