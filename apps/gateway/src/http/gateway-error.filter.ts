import { Catch } from '@nestjs/common';
import { BaseErrorFilter, type NormalizedError } from '@platform/errors';
import { STATUS_CODES } from 'node:http';

export interface GatewayErrorBody {
  statusCode: number;
  error: string;
  message: string;
  /** on 404: the prefixes the gateway routes, so the caller sees where to go */
  prefixes?: string[];
  docs?: string;
}

/**
 * The gateway's own errors: `{statusCode, error, message}` like its 502 answers. A path that matches
 * no prefix and no gateway route is a 404 that lists the known prefixes.
 */
@Catch()
export class GatewayErrorFilter extends BaseErrorFilter {
  protected readonly validationStatus = 400;

  constructor(private readonly prefixes: readonly string[]) {
    super();
  }

  protected render(error: NormalizedError): GatewayErrorBody {
    const body: GatewayErrorBody = {
      statusCode: error.status,
      error: STATUS_CODES[error.status] ?? 'Error',
      message: error.message,
    };
    if (error.status === 404) {
      body.message = `${error.message}: no service is routed there. Known prefixes: ${this.prefixes.join(', ')}`;
      body.prefixes = [...this.prefixes];
      body.docs = '/';
    }
    return body;
  }
}
