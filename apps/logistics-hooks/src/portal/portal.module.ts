import { Module, RequestMethod, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { ErrorReportsModule } from '../error-reports/error-reports.module';
import { OceanTrackingModule } from '../ocean-tracking/ocean-tracking.module';
import { PublicRateLimitGuard } from './public-rate-limit.guard';
import { PortalController } from './portal.controller';
import { PortalService } from './portal.service';
import { PublicCorsMiddleware } from './public-cors.middleware';

/** The public portal: dashboard stats, track-public (CORS open) and the chat, both rate-limited per IP. */
@Module({})
export class PortalModule implements NestModule {
  /** `tasks`: the app's TasksModule (one instance, its controller registered once). */
  static forRoot(tasks: DynamicModule): DynamicModule {
    return { module: PortalModule, imports: [tasks, ErrorReportsModule, OceanTrackingModule], controllers: [PortalController], providers: [PortalService, PublicRateLimitGuard] };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PublicCorsMiddleware).forRoutes({ path: 'api/track-public', method: RequestMethod.ALL });
  }
}
