import { Global, Module } from '@nestjs/common';
import { BillingController } from './billing.controller';
import { BillingRepository } from './billing.repository';
import { BillingService } from './billing.service';
import { BillingUsage } from './billing-usage.service';
import { StripeEvents } from './stripe-events.service';
import { StripeGateway } from './stripe-gateway';
import { StripeWebhookController } from './stripe-webhook.controller';

/**
 * Billing: the monthly caps per category and their counters (`BillingUsage`, global so that the mail
 * queue, the campaign launch, the inbound receiver and the workflow engine take units without
 * importing this module), the Stripe routes of a project and Stripe's webhook.
 */
@Global()
@Module({
  controllers: [BillingController, StripeWebhookController],
  providers: [BillingRepository, BillingUsage, BillingService, StripeGateway, StripeEvents],
  exports: [BillingUsage, BillingService],
})
export class BillingModule {}
