import { runService } from '@platform/platform';
import { conversationApiService } from './service';

void runService(conversationApiService);
