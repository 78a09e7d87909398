import { runService } from '@platform/platform';
import { knowledgeMcpService } from './service';

void runService(knowledgeMcpService);
