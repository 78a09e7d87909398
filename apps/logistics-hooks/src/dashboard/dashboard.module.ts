import { Module } from '@nestjs/common';
import { PublicRateLimitGuard } from '../portal/public-rate-limit.guard';
import { DashboardController } from './dashboard.controller';
import { DashboardService } from './dashboard.service';

/** `GET /dashboard`: the live error dashboard page, and its login through auth-api. */
@Module({ controllers: [DashboardController], providers: [DashboardService, PublicRateLimitGuard] })
export class DashboardModule {}
