import { ApiProperty } from '@nestjs/swagger';
import { CursorPageDto } from '../../common/dto/cursor-page.dto';
import { MAX_IMAGE_BYTES, MAX_IMAGE_DIMENSION } from '../image-processing';

export class UploadedImageDto {
  @ApiProperty({ format: 'uuid', description: 'The upload (the same image uploaded again answers the same id)' })
  id: string;

  @ApiProperty({
    example: 'https://api.example.com/email/uploads/images/5f0c…/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.png',
    description:
      'Public URL of the image, for `<img src>` in template bodies: `<S3_PUBLIC_URL>/<project>/<key>` when the bucket has a public origin, else ' +
      '`<PUBLIC_BASE_URL>/uploads/images/<project>/<key>` (served by `GET /uploads/images/{project}/{key}`, no authentication). It never changes.',
  })
  url: string;

  @ApiProperty({ example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.png', description: '`<sha256>.<png|jpg|gif|webp>` of the stored bytes' })
  key: string;

  @ApiProperty({ enum: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'], description: 'From the file\'s content, never from its name or declared type' })
  contentType: string;

  @ApiProperty({ type: 'integer', description: 'Bytes stored (after metadata stripping and scaling)' })
  size: number;

  @ApiProperty({ type: 'integer', maximum: MAX_IMAGE_DIMENSION, description: 'Pixels, as stored (of one frame for an animated image)' })
  width: number;

  @ApiProperty({ type: 'integer', maximum: MAX_IMAGE_DIMENSION })
  height: number;

  @ApiProperty({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the stored bytes (also the ETag of the image route)' })
  sha256: string;

  @ApiProperty({ description: 'When the project first uploaded this image' })
  createdAt: Date;
}

export class UploadedImagePageDto extends CursorPageDto(UploadedImageDto) {}

/** The multipart body of POST /uploads/image (documentation only: multer reads it). */
export const IMAGE_UPLOAD_BODY = {
  description: `One image in the field \`file\`, at most ${MAX_IMAGE_BYTES / 1024 / 1024} MB`,
  schema: {
    type: 'object',
    required: ['file'],
    properties: {
      file: {
        type: 'string',
        format: 'binary',
        description: `PNG, JPEG, GIF (animated too) or WebP (animated too), recognised by content; at most ${MAX_IMAGE_BYTES} bytes (larger: 413). Other text fields are ignored.`,
      },
    },
  },
} as const;
