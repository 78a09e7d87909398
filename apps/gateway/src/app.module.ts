import { Module, type DynamicModule } from '@nestjs/common';
import { upstreamsOf, type GatewayConfig } from './config';
import { GatewayProxy } from './proxy/gateway-proxy';
import { buildRouteTable, RouteTable } from './routes/route-table';
import { ServicesController } from './services/services.controller';

@Module({})
export class GatewayModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [ServicesController],
      providers: [{ provide: RouteTable, useValue: buildRouteTable(upstreamsOf(config)) }, GatewayProxy],
    };
  }
}
