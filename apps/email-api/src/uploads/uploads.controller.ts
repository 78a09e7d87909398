import { Controller, Get, Logger, Headers, Param, Post, Query, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Response } from 'express';
import { pipeline } from 'node:stream';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, PARAM_ERRORS } from '../common/api-errors.decorator';
import { ErrorEnvelopeDto } from '../common/dto/error-envelope.dto';
import { CursorQueryDto, DEFAULT_LIMIT } from '../common/list-query.dto';
import { IMAGE_UPLOAD_BODY, UploadedImageDto, UploadedImagePageDto } from './dto/uploads.dto';
import { MAX_IMAGE_BYTES, MAX_IMAGE_DIMENSION, MAX_INPUT_PIXELS } from './image-processing';
import { IMAGE_CACHE_CONTROL } from './image-store';
import { ImageUploadInterceptor, type UploadedImageFile } from './image-upload.interceptor';
import { etagOf, UploadsService } from './uploads.service';

const MB = MAX_IMAGE_BYTES / 1024 / 1024;

/** Headers of every image answer: cached for a year by browsers, mail proxies and CDNs, never sniffed or run as a document. */
const IMAGE_HEADERS = {
  'Cache-Control': IMAGE_CACHE_CONTROL,
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

@ApiTags('Uploads')
@Controller('uploads')
export class UploadsController {
  private readonly logger = new Logger(UploadsController.name);

  constructor(private readonly uploads: UploadsService) {}

  @Post('image')
  @ProjectAccess({ session: true })
  @UseInterceptors(ImageUploadInterceptor)
  @ApiConsumes('multipart/form-data')
  @ApiBody(IMAGE_UPLOAD_BODY)
  @ApiOperation({
    summary: 'Upload an image for template bodies; returns its public URL',
    description: [
      `Multipart field \`file\`: one PNG, JPEG, GIF or WebP image, **at most ${MB} MB** (${MAX_IMAGE_BYTES} bytes; larger: 413, refused while it streams, never read whole). ` +
        'The type is read from the file\'s content (its signature, then decoded by sharp), never from its name or declared Content-Type: a text file named `.png` is 415, SVG is never accepted.',
      `The stored image is cleaned: the EXIF orientation is applied, then **every metadata block is removed** (EXIF with GPS position and camera, XMP, IPTC, ICC profiles: colours converted to sRGB); ` +
        `images wider or taller than **${MAX_IMAGE_DIMENSION} px** are scaled down to fit ${MAX_IMAGE_DIMENSION} × ${MAX_IMAGE_DIMENSION} (aspect ratio kept, never enlarged), in their own format. ` +
        `Animated GIF and WebP keep every frame. Images that would decode to more than ${MAX_INPUT_PIXELS.toLocaleString('en-US')} pixels (width × height × frames) are refused (422).`,
      'The key is the SHA-256 of the stored bytes plus the extension: the same image uploaded twice answers the same upload (same id and URL), and a URL never changes content. ' +
        'The URL is public by design (mail clients fetch it without credentials) and unguessable; only uploading needs the secret key or a dashboard session.',
      'Stored under DATA_DIR, or in the S3 bucket when `S3_BUCKET` is set (see the README).',
    ].join('\n\n'),
  })
  @ApiCreatedResponse({ type: UploadedImageDto, description: 'Stored (also 201 when the project had uploaded the same image before: the same upload is answered)' })
  @ApiResponse({
    status: 415,
    description: '`UNSUPPORTED_IMAGE_TYPE`: the content is not PNG, JPEG, GIF or WebP (e.g. SVG, HTML, text, PDF), whatever its name or declared type',
    content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorEnvelopeDto) } } },
  })
  @ApiErrors({
    400: '`BAD_REQUEST`: a malformed multipart body, a file in a field other than `file`, more than one file, or more than 20 text fields',
    413: `\`PAYLOAD_TOO_LARGE\`: the image is larger than ${MB} MB (the connection closes after the answer)`,
    422:
      '`VALIDATION_ERROR`: no file or an empty one, or a body that is not multipart/form-data (`errors[0].field` = `file`, code `required`); `INVALID_IMAGE`: it starts like an image but does not decode (truncated or corrupt); ' +
      `\`IMAGE_TOO_LARGE\`: more than ${MAX_INPUT_PIXELS.toLocaleString('en-US')} pixels once decoded`,
    502: '`UPLOAD_STORAGE_FAILED`: the image store (disk or bucket) failed; nothing was recorded, try again',
  })
  uploadImage(@CurrentProject() ctx: ProjectContext, @UploadedFile() file?: UploadedImageFile) {
    return this.uploads.uploadImage(ctx.project.id, file);
  }

  @Get('images')
  @ProjectAccess({ session: true })
  @ApiOperation({ summary: 'The project\'s uploaded images, newest first (cursor pagination)' })
  @ApiOkResponse({ type: UploadedImagePageDto })
  @ApiErrors(PARAM_ERRORS, { 400: '`INVALID_CURSOR`: the cursor was not returned by this list' })
  list(@CurrentProject() ctx: ProjectContext, @Query() query: CursorQueryDto) {
    return this.uploads.list(ctx.project.id, query.limit ?? DEFAULT_LIMIT, query.cursor);
  }

  @Get('images/:project/:key')
  @ApiOperation({
    summary: 'An uploaded image (public)',
    description:
      'No authentication: the URLs go into emails. Answers the bytes with their `Content-Type` (image/png, image/jpeg, image/gif or image/webp; nothing else is ever served), ' +
      `\`Cache-Control: ${IMAGE_CACHE_CONTROL}\` (a key never changes content), a strong \`ETag\` (the SHA-256), \`X-Content-Type-Options: nosniff\` and a sandboxing Content-Security-Policy. ` +
      '`If-None-Match` with the ETag answers 304 Not Modified (no body) without reading storage. Streamed from DATA_DIR or from the bucket; HEAD answers the headers.',
  })
  @ApiParam({ name: 'project', format: 'uuid', description: 'The project that uploaded it' })
  @ApiParam({ name: 'key', example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.png', description: '`<sha256>.<png|jpg|gif|webp>`' })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'The ETag of a cached copy: 304 when it matches' })
  @ApiProduces('image/png', 'image/jpeg', 'image/gif', 'image/webp')
  @ApiOkResponse({
    description: 'The image',
    schema: { type: 'string', format: 'binary' },
    headers: {
      'Cache-Control': { schema: { type: 'string', example: IMAGE_CACHE_CONTROL } },
      ETag: { description: 'The SHA-256 of the bytes, quoted', schema: { type: 'string' } },
      'X-Content-Type-Options': { schema: { type: 'string', example: 'nosniff' } },
    },
  })
  @ApiErrors({
    404: '`UPLOAD_NOT_FOUND`: no such image (also for a project that is no UUID or a key that is not `<sha256>.<png|jpg|gif|webp>`)',
    502: '`UPLOAD_STORAGE_FAILED`: the bucket could not be read',
  })
  async image(@Param('project') project: string, @Param('key') key: string, @Res() res: Response, @Headers('if-none-match') ifNoneMatch?: string): Promise<void> {
    if (ifNoneMatch && this.uploads.isImageKey(project, key) && matchesEtag(ifNoneMatch, etagOf(key))) {
      res.status(304).set({ ...IMAGE_HEADERS, ETag: etagOf(key) }).end();
      return;
    }
    const image = await this.uploads.open(project, key);
    res.status(200).set({ ...IMAGE_HEADERS, 'Content-Type': image.contentType, 'Content-Length': String(image.size), ETag: image.etag });
    // A storage stream that breaks mid-way ends this one answer (the client sees a short body), never the process.
    pipeline(image.body, res, (err) => {
      if (err && err.code !== 'ERR_STREAM_PREMATURE_CLOSE') this.logger.warn(`image ${project}/${key} not fully sent: ${err.message}`);
    });
  }
}

/** `If-None-Match: "a", W/"b"` (RFC 9110 §13.1.2, weak comparison). */
function matchesEtag(header: string, etag: string): boolean {
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === etag || tag === `W/${etag}`;
  });
}
