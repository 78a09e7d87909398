import { runService } from '@platform/platform';
import { knowledgeApiService } from './service';

void runService(knowledgeApiService);
