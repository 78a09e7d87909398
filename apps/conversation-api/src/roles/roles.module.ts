import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module';
import { RolesController } from './roles.controller';
import { RolesRepository } from './roles.repository';
import { RolesService } from './roles.service';

@Module({ imports: [SessionsModule], controllers: [RolesController], providers: [RolesRepository, RolesService], exports: [RolesService] })
export class RolesModule {}
