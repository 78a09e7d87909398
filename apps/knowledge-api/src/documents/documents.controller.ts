import { Body, Controller, HttpCode, Post, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiAcceptedResponse, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiError } from '@platform/errors';
import { memoryStorage } from 'multer';
import { UploadAcceptedDto, UploadFormDto, UploadResultDto } from './dto/upload.dto';
import { DocumentsService } from './documents.service';
import { MAX_UPLOAD_BYTES } from './extract-text';
import { UploadLimitInterceptor } from './upload-limit.interceptor';
import { ApiKeyDocs } from '../common/api-key';

@ApiTags('documents')
@ApiKeyDocs()
@Controller('api/documents')
export class DocumentsController {
  constructor(private readonly documents: DocumentsService) {}

  @Post('upload')
  @HttpCode(200)
  @UseInterceptors(UploadLimitInterceptor, FileInterceptor('file', { storage: memoryStorage(), limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } }))
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: UploadFormDto })
  @ApiOperation({
    summary: 'Upload a document',
    description:
      'The file is checked here (type by name and content, size, tags) and queued as a job: text extraction (pdf-parse, mammoth, word-extractor), chunking and embedding run off the request on whichever replica claims it, with progress like a crawl\'s (`GET /api/progress/{progress_id}`, Socket.IO `subscribe`). The request waits up to UPLOAD_WAIT_MS (10 s) for the job: **200** with the spec\'s Document when it is done in time, else **202** with `progress_id` and the Document without `chunks_created` (follow the progress; its completion carries `chunksStored`). Source id = `file:<file name>` (uploading the same name again replaces it). Errors `{error}`: 400 no file or bad tags, 413 over the limit of its type, 415 type not supported or content not matching the name, 422 unreadable document (when the job failed within the wait; after it, the progress ends in `error` with `errorStatus` 422).',
  })
  @ApiOkResponse({ type: UploadResultDto })
  @ApiAcceptedResponse({ type: UploadAcceptedDto })
  async upload(
    @UploadedFile() file: Express.Multer.File | undefined,
    @Body() form: UploadFormDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<UploadResultDto | UploadAcceptedDto> {
    if (!file) throw new ApiError(400, 'BAD_REQUEST', 'multipart field "file" is required');
    const outcome = await this.documents.upload(file, form.knowledge_type ?? 'technical', form.tags);
    if (outcome.done) {
      const { document } = outcome;
      return { success: true, progress_id: outcome.progressId, message: `Document ${document.filename} uploaded: ${document.chunks_created} chunks created`, document };
    }
    res.status(202);
    return {
      success: true,
      progress_id: outcome.progressId,
      message: `Document ${outcome.document.filename} is being processed: follow GET /api/progress/${outcome.progressId}`,
      document: outcome.document,
    };
  }
}
