import { runService } from '@platform/platform';
import { automationApiService } from './service';

void runService(automationApiService);
