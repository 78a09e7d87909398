import { ReferencesDto } from '../../common/dto/references.dto';
import { ApiProperty } from '@nestjs/swagger';
import { CursorPageDto } from '../../common/dto/cursor-page.dto';
import { idPattern } from '../../common/ids';

/** A stored event of a list (`toEvent`, with the contact's email). */
export class EventDto {
  @ApiProperty({ pattern: idPattern('evt'), example: 'evt_0a1b2c3d4e5f6g7h8i9j' })
  id: string;

  @ApiProperty({ example: 'signed_up' })
  name: string;

  @ApiProperty({ type: String, nullable: true, pattern: idPattern('cnt'), example: 'cnt_0a1b2c3d4e5f6g7h8i9j', description: 'The contact of the event (null for an event recorded without one)' })
  contactId: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, example: { plan: 'pro' }, description: 'Event properties; null when none' })
  data: Record<string, unknown> | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: String, nullable: true, example: 'ada@example.com', description: 'Email of that contact (null without one)' })
  email: string | null;
}

export class EventPageDto extends CursorPageDto(EventDto) {}

class EventCountDto {
  @ApiProperty({ example: 'signed_up' })
  name: string;

  @ApiProperty({ type: 'integer', minimum: 1 })
  count: number;
}

export class EventStatsDto {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Every stored event' })
  total: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  uniqueNames: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  uniqueContacts: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  last24h: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  last7d: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  last30d: number;

  @ApiProperty({ type: [EventCountDto], description: 'The 10 most used names' })
  topEvents: EventCountDto[];
}

export class EventNameDto {
  @ApiProperty({ example: 'signed_up' })
  name: string;

  @ApiProperty({ type: 'integer', minimum: 1 })
  count: number;

  @ApiProperty({ format: 'date-time' })
  firstSeen: string;

  @ApiProperty({ format: 'date-time' })
  lastSeen: string;
}

export class EventUsageDto {
  @ApiProperty({ example: 'signed_up' })
  name: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Events tracked with the name (0 when only referenced)' })
  count: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  firstSeen: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  lastSeen: string | null;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Distinct contacts with the event' })
  contacts: number;

  @ApiProperty({ description: 'Tracked at least once or referenced anywhere' })
  inUse: boolean;

  @ApiProperty({ type: ReferencesDto, description: 'Where the name is referenced (segment conditions, campaign audience conditions; `templates` is always empty)' })
  references: ReferencesDto;
}

export class EventsDeletedDto {
  @ApiProperty({ example: 'signed_up' })
  name: string;

  @ApiProperty({ type: 'integer', minimum: 1 })
  deleted: number;
}
