import { runService } from '@platform/platform';
import { autostartProxyService } from './service';

void runService(autostartProxyService);
