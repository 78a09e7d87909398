import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, MaxLength } from 'class-validator';

/** An optional list of at most 50 tags of at most 100 characters each. */
export function IsTagList(description?: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: [String], description }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(50),
    IsString({ each: true }),
    MaxLength(100, { each: true }),
  );
}
