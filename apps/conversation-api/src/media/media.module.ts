import { Module } from '@nestjs/common';
import { MediaStore } from './media-store';

/** Downloaded media (inbound WhatsApp media, which expires at the provider within minutes). */
@Module({ providers: [MediaStore], exports: [MediaStore] })
export class MediaModule {}
