import { ApiProperty } from '@nestjs/swagger';
import { realmUserFields } from '../../common/realm-user.view';
import type { FiscalUser } from '../entities/fiscal-user.entity';

export class UserDto {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 'admin@example.com' }) email: string;
  @ApiProperty({ nullable: true, type: String, example: 'Ada Admin' }) full_name: string | null;
  @ApiProperty({ example: 'admin' }) role: string;
  @ApiProperty() is_active: boolean;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' }) created_at: string;

  static from(user: FiscalUser): UserDto {
    return { id: user.id, ...realmUserFields(user) };
  }
}
