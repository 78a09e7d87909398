import { Module } from '@nestjs/common';
import { ActivityController } from './activity.controller';
import { ActivityRepository } from './activity.repository';
import { ActivityService } from './activity.service';
import { ExecutionsModule } from '../workflows/executions.module';

@Module({ imports: [ExecutionsModule], controllers: [ActivityController], providers: [ActivityRepository, ActivityService] })
export class ActivityModule {}
