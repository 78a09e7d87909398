import { ApiProperty } from '@nestjs/swagger';

export class ServiceLinkDto {
  @ApiProperty({ example: 'auth-api' })
  name: string;

  @ApiProperty({ example: '/auth', description: 'path prefix on the gateway; stripped before forwarding' })
  prefix: string;

  @ApiProperty({ example: 'http://127.0.0.1:3004', description: 'where the gateway forwards (GATEWAY_UPSTREAM_<APP>)' })
  upstream: string;

  @ApiProperty({ example: '/auth/api/docs', description: "the service's Swagger UI through the gateway" })
  docs: string;

  @ApiProperty({ example: '/auth/api/docs-json', description: "the service's OpenAPI document through the gateway" })
  openapi: string;

  @ApiProperty({ enum: ['up', 'down'], description: "whether the service's /healthz answered just now" })
  status: 'up' | 'down';
}

export class ServiceListDto {
  @ApiProperty({ example: 'gateway' })
  name: string;

  @ApiProperty({ example: '/api/docs' })
  docs: string;

  @ApiProperty({ type: [ServiceLinkDto] })
  services: ServiceLinkDto[];
}
