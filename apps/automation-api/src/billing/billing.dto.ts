import { ApiProperty } from '@nestjs/swagger';

export class UsageDto {
  @ApiProperty() used: number;
  @ApiProperty({ type: Number, nullable: true, description: 'null: unlimited' }) limit: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'null: unlimited' }) remaining: number | null;
}

/** Result of the MCP tool `billing_status`. */
export class BillingStatusDto {
  @ApiProperty({ description: 'Plan name (BILLING_PLAN)' }) plan: string;
  @ApiProperty({ description: 'Start of the period: the first of the month, 00:00 UTC' }) period_start: string;
  @ApiProperty({ description: 'End of the period (exclusive)' }) period_end: string;
  @ApiProperty({ type: UsageDto, description: 'Runs started this period (BILLING_RUNS_PER_MONTH)' }) runs: UsageDto;
  @ApiProperty({ type: UsageDto, description: 'Messages sent this period: DMs, private and public replies (BILLING_MESSAGES_PER_MONTH)' }) messages: UsageDto;
  @ApiProperty({ type: UsageDto, description: 'Automations held (BILLING_AUTOMATIONS)' }) automations: UsageDto;
  @ApiProperty({ description: 'True when a limit is reached' }) over_limit: boolean;
}
