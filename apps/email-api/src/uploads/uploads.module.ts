import { Module } from '@nestjs/common';
import { EmailApiConfig } from '../config';
import { DiskImageStore } from './disk-image-store';
import { IMAGE_STORE, type ImageStore } from './image-store';
import { S3ImageStore } from './s3-image-store';
import { ImageUploadInterceptor } from './image-upload.interceptor';
import { UploadsController } from './uploads.controller';
import { UploadsRepository } from './uploads.repository';
import { UploadsService } from './uploads.service';

/** The image store of this deployment: the S3 bucket when S3_BUCKET is set, else DATA_DIR. */
export function createImageStore(config: EmailApiConfig): ImageStore {
  if (!config.S3_BUCKET) return new DiskImageStore(config.DATA_DIR);
  return new S3ImageStore({
    bucket: config.S3_BUCKET,
    region: config.S3_REGION,
    endpoint: config.S3_ENDPOINT,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    accessKeyId: config.S3_ACCESS_KEY_ID,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    publicUrl: config.S3_PUBLIC_URL,
  });
}

@Module({
  controllers: [UploadsController],
  providers: [UploadsRepository, UploadsService, ImageUploadInterceptor, { provide: IMAGE_STORE, useFactory: createImageStore, inject: [EmailApiConfig] }],
  exports: [UploadsService],
})
export class UploadsModule {}
