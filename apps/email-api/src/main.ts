import { runService } from '@platform/platform';
import { emailApiService } from './service';

void runService(emailApiService);
