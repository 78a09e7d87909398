import { Global, Module } from '@nestjs/common';
import { Clock } from '../common/clock';
import { GraphService } from './graph.service';
import { RateBudgetsRepository } from './rate-budgets.repository';

/**
 * One GraphService per app: per-account limiters and budgets are shared by every module. The app's
 * Clock lives here too, so that budget windows and the engine read the same (test-controllable) time.
 */
@Global()
@Module({ providers: [Clock, RateBudgetsRepository, GraphService], exports: [Clock, GraphService] })
export class GraphModule {}
