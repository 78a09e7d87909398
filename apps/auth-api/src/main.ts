import { runService } from '@platform/platform';
import { authApiService } from './service';

void runService(authApiService);
