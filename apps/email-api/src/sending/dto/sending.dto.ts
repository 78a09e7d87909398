import { ApiProperty } from '@nestjs/swagger';
import { IsNumber, Min, ValidateIf } from 'class-validator';

export class UpdateSendingDto {
  @ApiProperty({ type: Number, nullable: true, minimum: 0.01, example: 20, description: 'Mails per second for every kind of mail of the project; null: the operator\'s default (EMAIL_SEND_RATE). At most EMAIL_SEND_RATE_MAX.' })
  @ValidateIf((_o, v) => v !== null)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0.01)
  sendRate: number | null;
}

export class SendingSettingsDto {
  @ApiProperty({ type: Number, nullable: true, description: 'The project\'s own rate (mails per second); null: the default' })
  sendRate: number | null;

  @ApiProperty({ description: 'The rate in force (mails per second)' })
  effectiveRate: number;

  @ApiProperty({ description: 'EMAIL_SEND_RATE' })
  defaultRate: number;

  @ApiProperty({ description: 'EMAIL_SEND_RATE_MAX: the highest rate a project may set' })
  maxRate: number;
}
