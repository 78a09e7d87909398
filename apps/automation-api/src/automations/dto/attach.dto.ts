import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString } from 'class-validator';

/** Optional body of POST /automations/{id}/attach. */
export class AttachDto {
  @ApiPropertyOptional({ description: 'The suggested reel being confirmed; when given it must equal reel_suggestion.media_id' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  media_id?: string;
}
