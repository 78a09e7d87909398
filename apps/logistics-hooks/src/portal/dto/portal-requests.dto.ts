import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

export class TrackPublicDto {
  @ApiProperty({ description: 'Container (ISO 6346, check digit verified), bill of lading or booking number', example: 'CSQU3054383' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(40)
  tracking_number!: string;
}

export class ChatPublicDto {
  @ApiProperty({ example: 'Where is container CSQU3054383?' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1000)
  message!: string;

  @ApiPropertyOptional({ description: 'The client\'s conversation id, echoed back' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  session_id?: string;
}
