import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PROJECT_ROLES, type ProjectRole } from '../../access/roles';
import { DoubleOptInDto } from '../../opt-in/dto/opt-in.dto';

const PUBLIC_KEY = { pattern: '^pk_[A-Za-z0-9_-]{43}$', example: 'pk_3q2-7wEjN1mX0bC9vT5aLkQfR8sY4uZ6hG1dJ2oP0iW', description: 'Public key: only POST /v1/track' };
const SECRET_KEY_HINT = { pattern: '^sk_…[A-Za-z0-9_-]{4}$', example: 'sk_…x9Qa', description: 'The last 4 characters of the secret key (the key itself is stored hashed)' };

/** A project (`projectView`): keys as they can be shown after creation, never the secret key itself. */
abstract class ProjectFieldsDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'My product' })
  name: string;

  @ApiProperty(PUBLIC_KEY)
  publicKey: string;

  @ApiProperty(SECRET_KEY_HINT)
  secretKeyHint: string;

  @ApiProperty({ format: 'date-time', description: 'Creation of the current keys (the last rotation)' })
  keysRotatedAt: string;

  @ApiProperty({ description: 'A disabled project answers 403 PROJECT_DISABLED to its keys and members' })
  disabled: boolean;

  @ApiProperty({ type: String, nullable: true, description: 'Why; `paused for review: …` when the bounce or complaint rate crossed its threshold' })
  disabledReason: string | null;

  @ApiProperty({ description: 'Open and click tracking of the project\'s mail (PATCH /users/@me/projects/:id `trackingEnabled`)' })
  trackingEnabled: boolean;

  @ApiProperty({ type: DoubleOptInDto, description: 'Double opt-in of the project\'s signups (PATCH /users/@me/projects/:id `doubleOptIn`)' })
  doubleOptIn: DoubleOptInDto;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

/** A project answered to a session user or to the project's secret key. */
export class ProjectDto extends ProjectFieldsDto {
  @ApiPropertyOptional({ enum: PROJECT_ROLES, description: 'Role of the session user; absent when the secret key made the request' })
  role?: ProjectRole;
}

/** A project in the list of the session user: the role is always there. */
export class MyProjectDto extends ProjectFieldsDto {
  @ApiProperty({ enum: PROJECT_ROLES, description: 'Role of the session user in the project' })
  role: ProjectRole;
}

/** POST /users/@me/projects: the only answer besides a rotation that shows the secret key. */
export class CreatedProjectDto extends MyProjectDto {
  @ApiProperty({ pattern: '^sk_[A-Za-z0-9_-]{43}$', example: 'sk_Vb0mC4pL8tQ2xR6zN1wE5yK9aJ3hF7gD0sU4iO8x9Qa', description: 'Secret key: shown once, store it now' })
  secretKey: string;
}

/** POST …/regenerate-keys: the new keys (the old ones stopped working with this answer). */
export class RotatedProjectDto extends ProjectDto {
  @ApiProperty({ pattern: '^sk_[A-Za-z0-9_-]{43}$', example: 'sk_Vb0mC4pL8tQ2xR6zN1wE5yK9aJ3hF7gD0sU4iO8x9Qa', description: 'The new secret key: shown once' })
  secretKey: string;
}

class ProjectKeysDto {
  @ApiProperty(PUBLIC_KEY)
  publicKey: string;

  @ApiProperty(SECRET_KEY_HINT)
  secretKeyHint: string;

  @ApiProperty({ format: 'date-time', description: 'Last rotation (or creation)' })
  rotatedAt: string;
}

class DeliveryDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 1 },
    example: { SENT: 120, FAILED: 3, QUEUED: 2 },
    description: 'Emails created in the last 30 days by status (QUEUED, SENDING, SENT, FAILED, SUPPRESSED, STORED, CANCELLED); statuses without emails are absent',
  })
  byStatus: Record<string, number>;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'SENT + FAILED' })
  attempted: number;

  @ApiProperty({ minimum: 0, maximum: 100, example: 2.44, description: 'FAILED / attempted in percent, two decimals; 0 when nothing was attempted' })
  failureRate: number;
}

export class ProjectSecurityDto {
  @ApiProperty({ format: 'uuid' })
  projectId: string;

  @ApiProperty()
  disabled: boolean;

  @ApiProperty({ type: String, nullable: true })
  disabledReason: string | null;

  @ApiProperty({ type: ProjectKeysDto })
  keys: ProjectKeysDto;

  @ApiProperty({ type: 'integer', minimum: 1 })
  members: number;

  @ApiProperty({ type: 'integer', minimum: 1 })
  owners: number;

  @ApiProperty({ type: DeliveryDto, description: 'Delivery outcomes of the last 30 days' })
  delivery30Days: DeliveryDto;
}

class WipedRowsDto {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Mail events (sends, opens, clicks, bounces…); the suppression list is kept' }) mail_events: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Quarter-hour rollups of the mail events' }) mail_event_rollups: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Queued mail-event counts not yet in the rollups (rows: one per event, or per quarter hour, type and flag of a batch of opens and clicks)' }) mail_event_rollup_queue: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) events: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) emails: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) contacts: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) jobs: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Stored Idempotency-Key answers' }) idempotency_keys: number;
}

export class ProjectResetDto {
  @ApiProperty({ format: 'uuid' })
  projectId: string;

  @ApiProperty({ enum: [true] })
  reset: true;

  @ApiProperty({ type: WipedRowsDto, description: 'Rows deleted per table' })
  deleted: WipedRowsDto;
}

const SETUP_STEPS = ['create_project', 'add_contact', 'track_event', 'send_email', 'invite_member'] as const;

class SetupStepDto {
  @ApiProperty({ enum: SETUP_STEPS, description: 'Always the five steps, in this order' })
  id: (typeof SETUP_STEPS)[number];

  @ApiProperty()
  done: boolean;
}

export class SetupStateDto {
  @ApiProperty({ format: 'uuid' })
  projectId: string;

  @ApiProperty({ description: 'At least one contact' })
  hasContacts: boolean;

  @ApiProperty({ description: 'At least one tracked event' })
  hasEvents: boolean;

  @ApiProperty({ description: 'At least one email with status SENT' })
  hasSentEmail: boolean;

  @ApiProperty({ description: 'At least one email of any status (queued, stored, sent…)' })
  hasQueuedEmail: boolean;

  @ApiProperty({ type: 'integer', minimum: 1 })
  members: number;

  @ApiProperty({ type: [SetupStepDto] })
  steps: SetupStepDto[];

  @ApiProperty({ description: 'Every step is done' })
  completed: boolean;
}

export class MemberDto {
  @ApiProperty({ format: 'uuid' })
  userId: string;

  @ApiProperty({ example: 'ada@example.com' })
  email: string;

  @ApiProperty({ type: String, nullable: true })
  name: string | null;

  @ApiProperty({ enum: PROJECT_ROLES })
  role: ProjectRole;

  @ApiProperty({ format: 'date-time', description: 'When the user joined the project' })
  createdAt: string;
}
