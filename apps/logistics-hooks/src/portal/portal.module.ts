import { Module, RequestMethod, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { ErrorReportsModule } from '../error-reports/error-reports.module';
import { ChatRateLimitGuard } from './chat-rate-limit.guard';
import { PortalController } from './portal.controller';
import { PortalService } from './portal.service';
import { PublicCorsMiddleware } from './public-cors.middleware';

/** The public portal: dashboard stats, track-public (CORS open) and the rate-limited chat. */
@Module({})
export class PortalModule implements NestModule {
  /** `tasks`: the app's TasksModule (one instance, its controller registered once). */
  static forRoot(tasks: DynamicModule): DynamicModule {
    return { module: PortalModule, imports: [tasks, ErrorReportsModule], controllers: [PortalController], providers: [PortalService, ChatRateLimitGuard] };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PublicCorsMiddleware).forRoutes({ path: 'api/track-public', method: RequestMethod.ALL });
  }
}
