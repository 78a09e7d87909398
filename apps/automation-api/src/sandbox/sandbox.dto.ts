import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

const ID = /^[0-9A-Za-z_.-]{1,64}$/;

export class SandboxCommentDto {
  @ApiProperty({ example: 'LINK please' }) @IsString() @IsNotEmpty() @MaxLength(2200) text: string;
  @ApiPropertyOptional({ description: 'Person id (IGSID); default 1000000000000001', example: '1000000000000001' })
  @IsOptional() @Matches(ID, { message: 'user_id must be 1-64 letters, digits, dots, dashes or underscores' }) user_id?: string;
  @ApiPropertyOptional({ example: 'jane' }) @IsOptional() @IsString() @MaxLength(30) username?: string;
  @ApiPropertyOptional({ description: 'Post id (GET /sandbox/outbox lists them); default the newest post' }) @IsOptional() @IsString() media_id?: string;
  @ApiPropertyOptional({ description: 'Comment id when this comment is a reply' }) @IsOptional() @IsString() parent_id?: string;
}

export class SandboxMessageDto {
  @ApiProperty({ example: 'jane@example.com' }) @IsString() @IsNotEmpty() @MaxLength(1000) text: string;
  @ApiPropertyOptional({ example: '1000000000000001' })
  @IsOptional() @Matches(ID, { message: 'user_id must be 1-64 letters, digits, dots, dashes or underscores' }) user_id?: string;
  @ApiPropertyOptional({ example: 'jane' }) @IsOptional() @IsString() @MaxLength(30) username?: string;
  @ApiPropertyOptional({ description: 'Set to make this a story reply' }) @IsOptional() @IsString() story_id?: string;
}

export class SandboxPostbackDto {
  @ApiProperty({ description: 'The button payload from GET /sandbox/outbox, e.g. run:1:open', example: 'run:1:open' }) @IsString() @IsNotEmpty() payload: string;
  @ApiPropertyOptional({ example: '1000000000000001' })
  @IsOptional() @Matches(ID, { message: 'user_id must be 1-64 letters, digits, dots, dashes or underscores' }) user_id?: string;
}

export class SandboxUserDto {
  @ApiProperty({ example: '1000000000000001' }) @Matches(ID, { message: 'user_id must be 1-64 letters, digits, dots, dashes or underscores' }) user_id: string;
  @ApiPropertyOptional({ example: 'jane' }) @IsOptional() @IsString() @MaxLength(30) username?: string;
  @ApiProperty({ description: 'Whether the person follows the account (follow gate)' }) @IsBoolean() follows: boolean;
}
