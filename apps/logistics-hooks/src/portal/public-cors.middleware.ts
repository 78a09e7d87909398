import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/**
 * CORS open to every origin, for `POST /api/track-public` only (the spec; every other route sends no
 * CORS headers, so browsers on other origins cannot read them). Answers the preflight (`OPTIONS`)
 * itself with 204, allowing POST and the headers the browser asks for.
 */
@Injectable()
export class PublicCorsMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method !== 'OPTIONS') return next();
    const requested = req.headers['access-control-request-headers'];
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', typeof requested === 'string' && requested ? requested : 'Content-Type');
    res.setHeader('Access-Control-Max-Age', '86400');
    res.setHeader('Vary', 'Access-Control-Request-Headers');
    res.status(204).end();
  }
}
