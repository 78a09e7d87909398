import { runService } from '@platform/platform';
import { transcribeApiService } from './service';

void runService(transcribeApiService);
