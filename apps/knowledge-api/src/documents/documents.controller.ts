import { Body, Controller, HttpCode, Post, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '@platform/errors';
import { memoryStorage } from 'multer';
import { UploadFormDto, UploadResultDto } from './dto/upload.dto';
import { DocumentsService } from './documents.service';
import { MAX_UPLOAD_BYTES } from './extract-text';
import { UploadLimitInterceptor } from './upload-limit.interceptor';

@ApiTags('documents')
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
      'Text extracted (pdf-parse, mammoth, word-extractor), chunked and stored; source id = the file name (uploading the same name again replaces it). Errors `{error}`: 400 no file or bad tags, 413 over the limit of its type, 415 type not supported or content not matching the name, 422 unreadable document.',
  })
  @ApiOkResponse({ type: UploadResultDto })
  async upload(@UploadedFile() file: Express.Multer.File | undefined, @Body() form: UploadFormDto): Promise<UploadResultDto> {
    if (!file) throw new ApiError(400, 'BAD_REQUEST', 'multipart field "file" is required');
    const document = await this.documents.upload(file, form.knowledge_type ?? 'technical', form.tags);
    return { success: true, message: `Document ${document.filename} uploaded: ${document.chunks_created} chunks created`, document };
  }
}
