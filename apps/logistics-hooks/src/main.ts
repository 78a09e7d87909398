import { runService } from '@platform/platform';
import { logisticsHooksService } from './service';

void runService(logisticsHooksService);
