import { Module, type DynamicModule } from '@nestjs/common';
import type { LogisticsHooksConfig } from '../config';
import { crmControllerAt } from './crm.controller';
import { CrmObjectsRepository } from './crm-objects.repository';
import { CrmService } from './crm.service';

/** `POST /{crm}-data`: the CRM data hub. */
@Module({})
export class CrmModule {
  static forRoot(config: LogisticsHooksConfig): DynamicModule {
    return { module: CrmModule, controllers: [crmControllerAt(config.LOGISTICS_CRM)], providers: [CrmService, CrmObjectsRepository] };
  }
}
