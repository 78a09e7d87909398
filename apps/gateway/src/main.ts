import { runService } from '@platform/platform';
import { gatewayService } from './service';

void runService(gatewayService);
