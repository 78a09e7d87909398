import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { VideosController } from './videos.controller';
import { VideosRepository } from './videos.repository';
import { VideosService } from './videos.service';

@Module({
  imports: [AccountsModule],
  controllers: [VideosController],
  providers: [VideosRepository, VideosService],
  exports: [VideosService],
})
export class VideosModule {}
