import { ApiProperty } from '@nestjs/swagger';

export class ErrorDto {
  @ApiProperty({ description: 'what went wrong and what to do next', example: 'Job 3f… not found: it never existed or its record expired.' })
  detail: string;
}
