import { Body, Controller, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { MANAGERS, type ProjectRole } from '../access/roles';
import { ApiErrors, JSON_BODY_ERRORS, PARAM_ERRORS } from '../common/api-errors.decorator';
import { BillingUsage } from './billing-usage.service';
import { BillingService } from './billing.service';
import {
  BillingConsumptionDto,
  BillingLimitsDto,
  BillingLimitsViewDto,
  CheckoutDto,
  CheckoutSessionDto,
  InvoicePageDto,
  InvoicesQueryDto,
  PortalDto,
  PortalSessionDto,
} from './dto/billing.dto';

/**
 * Billing of the project `:id`: a member's session or the project's secret key, like the project's
 * other settings; answered while the project is disabled (billing is how a project disabled for
 * non-payment is fixed).
 */
const BILLING = (roles?: ProjectRole[]) => ProjectAccess({ session: true, projectParam: 'id', roles, settings: true });

const DISABLED = { 503: '`BILLING_DISABLED`: Stripe is not configured on this server (STRIPE_SECRET_KEY unset; GET /config says `billing: false`)' };
const PROVIDER = { 502: '`BILLING_PROVIDER_ERROR`: Stripe refused the call or could not be reached (after two retries)' };

@ApiTags('Users and projects')
@Controller('users/@me/projects/:id')
export class BillingController {
  constructor(
    private readonly usage: BillingUsage,
    private readonly billing: BillingService,
  ) {}

  @Get('billing-limits')
  @BILLING()
  @ApiOperation({
    summary: 'The project\'s monthly caps per category',
    description:
      'Caps per calendar month (UTC) for `workflows` (workflow steps), `campaigns` (campaign mails and test copies), `transactional` (`POST /v1/send`) and `inbound` (mail received); null: unlimited. ' +
      'With Stripe configured, a project whose plan is not `active` also has the plan allowance (`planAllowance`, BILLING_FREE_LIMIT a category); the lower of the two applies.',
  })
  @ApiOkResponse({ type: BillingLimitsViewDto })
  limits(@CurrentProject() ctx: ProjectContext) {
    return this.usage.limits(ctx.project.id);
  }

  @Put('billing-limits')
  @BILLING(MANAGERS)
  @ApiOperation({
    summary: 'Set the four caps (OWNER or ADMIN)',
    description:
      'Replaces all four caps: each a positive integer (at most 1,000,000,000) or null for unlimited; each is required. A cap lower than this month\'s count refuses the next sends at once; nothing already queued is withdrawn. ' +
      'A send over a cap answers 429 `BILLING_LIMIT_REACHED` naming the category (`error.errors[0].field`) and when the month resets (`Retry-After`).',
  })
  @ApiOkResponse({ type: BillingLimitsViewDto })
  @ApiErrors(JSON_BODY_ERRORS)
  setLimits(@CurrentProject() ctx: ProjectContext, @Body() body: BillingLimitsDto) {
    return this.usage.setLimits(ctx.project.id, { workflows: body.workflows, campaigns: body.campaigns, transactional: body.transactional, inbound: body.inbound });
  }

  @Get('billing-consumption')
  @BILLING()
  @ApiOperation({
    summary: 'This month\'s consumption per category: count, cap, share used, the 80 % warning',
    description:
      'Exact counters, taken in the transaction that writes each mail (`POST /v1/send` per recipient, campaign mails as the fan-out writes them, workflow steps, inbound mail stored). ' +
      'FAILED, CANCELLED and SUPPRESSED mail is not counted: its unit is given back when it ends so. Platform mail (verification, password reset) is never counted. `warning` from 80 % of a cap; at 100 % sends of the category are refused until `resetsAt` (the first of the next month, UTC).',
  })
  @ApiOkResponse({ type: BillingConsumptionDto })
  consumption(@CurrentProject() ctx: ProjectContext) {
    return this.usage.consumption(ctx.project.id);
  }

  @Post('checkout')
  @HttpCode(200)
  @BILLING(MANAGERS)
  @ApiOperation({
    summary: 'A Stripe Checkout Session for the paid plan (OWNER or ADMIN)',
    description:
      'A Checkout Session in subscription mode for STRIPE_PRICE_ID, for the project\'s Stripe customer (created at the first checkout with the project id in its metadata, then kept: later checkouts reuse it). ' +
      'Send the browser to `url`. When Stripe reports the payment (`checkout.session.completed`, `invoice.paid` at `POST /webhooks/incoming/stripe`) the plan becomes `active`: the plan allowance no longer applies (the project\'s own caps still do).',
  })
  @ApiOkResponse({ type: CheckoutSessionDto })
  @ApiErrors(JSON_BODY_ERRORS, DISABLED, PROVIDER)
  checkout(@CurrentProject() ctx: ProjectContext, @Body() body: CheckoutDto) {
    return this.billing.checkout(ctx.project, ctx.user?.email ?? null, body);
  }

  @Post('billing-portal')
  @HttpCode(200)
  @BILLING(MANAGERS)
  @ApiOperation({
    summary: 'A Stripe customer portal session (OWNER or ADMIN)',
    description: 'Payment methods, invoices, cancelling the subscription. Needs the customer made by a first checkout.',
  })
  @ApiOkResponse({ type: PortalSessionDto })
  @ApiErrors(JSON_BODY_ERRORS, DISABLED, PROVIDER, { 409: '`BILLING_CUSTOMER_MISSING`: no checkout was started yet, so the project has no Stripe customer' })
  portal(@CurrentProject() ctx: ProjectContext, @Body() body: PortalDto) {
    return this.billing.portal(ctx.project.id, body.returnUrl);
  }

  @Get('billing-invoices')
  @BILLING()
  @ApiOperation({
    summary: 'The project\'s Stripe invoices, newest first',
    description: 'From Stripe (`invoices.list` of the project\'s customer), `limit` (default 10, max 100) per page, `cursor` the last invoice id of the previous page. Amounts in the currency\'s smallest unit. Empty before the first checkout.',
  })
  @ApiOkResponse({ type: InvoicePageDto })
  @ApiErrors(PARAM_ERRORS, DISABLED, PROVIDER)
  invoices(@CurrentProject() ctx: ProjectContext, @Query() query: InvoicesQueryDto) {
    return this.billing.invoices(ctx.project.id, query.limit ?? 10, query.cursor);
  }
}
