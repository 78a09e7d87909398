import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { CONDITION_OPERATORS, DELAY_UNITS, WEBHOOK_METHODS } from '../step-config';

/*
 * The config of each step type, for the API description only: `validateStepConfig` (step-config.ts)
 * checks them, field by field, with the step's type in hand.
 */

export class TriggerStepConfigDto {}

export class SendEmailConfigDto {
  @ApiProperty({ format: 'uuid', description: 'A template of the project; its `from` must be on a verified domain when the workflow is enabled' })
  templateId: string;

  @ApiPropertyOptional({ format: 'email', description: 'Mail another address than the contact\'s (a team inbox); the contact\'s address when absent' })
  to?: string;
}

export class DelayConfigDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 2, description: 'Positive whole number; at most 365 days in all' })
  amount: number;

  @ApiProperty({ enum: DELAY_UNITS })
  unit: string;
}

export class WaitForEventConfigDto {
  @ApiProperty({ example: 'purchase_completed', description: 'The contact\'s next tracked event of this name resumes the execution' })
  eventName: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 365 * 86_400, description: 'Seconds; then the `timeout` transition, or without one the execution ends COMPLETED (exitReason `timeout`). Absent: waits until the event comes' })
  timeout?: number;
}

export class ConditionConfigDto {
  @ApiProperty({
    example: 'contact.data.plan',
    description: '`contact.email`, `contact.subscribed`, `contact.data.<key>` (up to 5 levels), `event.<key>` (the triggering event\'s data), `email.<stepId>.opened` / `email.<stepId>.clicked` (the mail of a SEND_EMAIL step before it, in this execution). GET /workflows/fields lists them',
  })
  field: string;

  @ApiProperty({ enum: CONDITION_OPERATORS, description: '`contact.subscribed` and the mail facts take `equals` / `not_equals` with true or false' })
  operator: string;

  @ApiPropertyOptional({ description: 'A string, number or boolean; an array of 1–100 of them for `in`; absent for `exists` / `not_exists`', example: 'pro' })
  value?: unknown;
}

export class WebhookConfigDto {
  @ApiProperty({ example: 'https://hooks.example.com/workflow', description: 'http or https, at most 2048 characters, no credentials in it' })
  url: string;

  @ApiProperty({ enum: WEBHOOK_METHODS })
  method: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'At most 30; framing, Host and the platform\'s signature headers are refused' })
  headers?: Record<string, string>;

  @ApiPropertyOptional({ description: 'A JSON value or a string (not with GET), at most 64 KiB' })
  body?: unknown;
}

export class UpdateContactConfigDto {
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { plan: 'pro' }, description: 'Custom fields merged into the contact (null removes one); at most 50' })
  data?: Record<string, unknown>;

  @ApiPropertyOptional()
  subscribed?: boolean;
}

export class ExitConfigDto {
  @ApiPropertyOptional({ maxLength: 200, description: 'The execution\'s exitReason' })
  reason?: string;
}

export const STEP_CONFIG_MODELS = [TriggerStepConfigDto, SendEmailConfigDto, DelayConfigDto, WaitForEventConfigDto, ConditionConfigDto, WebhookConfigDto, UpdateContactConfigDto, ExitConfigDto];

/** The `config` schema: an object whose shape depends on the step's type (any of the configs). */
export const STEP_CONFIG_SCHEMA = {
  type: 'object' as const,
  additionalProperties: true,
  anyOf: STEP_CONFIG_MODELS.map((m) => ({ $ref: getSchemaPath(m) })),
};
