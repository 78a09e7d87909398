import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsNotEmpty, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import type { Team } from '../teams.repository';

export class TeamDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'Sales' }) name: string;
  @ApiProperty({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ type: [String], description: 'User ids of the members' }) member_ids: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export const teamView = (t: Team): TeamDto => ({ id: t.id, name: t.name, description: t.description, member_ids: t.memberIds, created_at: t.createdAt.toISOString() });

export class CreateTeamDto {
  @ApiProperty({ example: 'Sales' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({ type: [String], description: 'User ids of the account' })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @ArrayMaxSize(1000)
  @IsUUID('all', { each: true })
  member_ids?: string[];
}

export class UpdateTeamDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;
}

export class TeamMembersDto {
  @ApiProperty({ type: [String], description: 'The complete member list (replaces the current one)' })
  @IsArray()
  @ArrayUnique()
  @ArrayMaxSize(1000)
  @IsUUID('all', { each: true })
  member_ids: string[];
}
