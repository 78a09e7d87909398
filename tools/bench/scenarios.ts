// The benchmark scenarios of `npm run bench`. A later service adds its hot path by adding one entry
// (and, when it is not started yet, one line to APPS in processes.ts).
import type { BenchTargets } from './processes';

export interface Scenario {
  /** shown in the table and used as key in dist/bench/results.json */
  name: string;
  /** apps the scenario needs running (each in its own process, as deployed) */
  needs: string[];
  /** the request autocannon repeats */
  request: (t: BenchTargets) => { url: string; method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; headers?: Record<string, string>; body?: string };
  /** the scenario this one is compared with (ratio printed) */
  compareWith?: string;
  /** HTTP status every response must have; default 200 */
  expectStatus?: number;
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'baseline: bare node:http',
    needs: ['bare'],
    request: (t) => ({ url: `${t.url('bare')}/healthz` }),
  },
  {
    name: 'auth-api /healthz direct',
    needs: ['auth-api'],
    request: (t) => ({ url: `${t.url('auth-api')}/healthz` }),
    compareWith: 'baseline: bare node:http',
  },
  {
    name: 'auth-api /healthz via bare node:http proxy',
    needs: ['auth-api', 'bare-proxy'],
    request: (t) => ({ url: `${t.url('bare-proxy')}/auth/healthz` }),
    compareWith: 'auth-api /healthz direct',
  },
  {
    name: 'auth-api /healthz via gateway',
    needs: ['auth-api', 'gateway'],
    request: (t) => ({ url: `${t.url('gateway')}/auth/healthz` }),
    compareWith: 'auth-api /healthz direct',
  },
  // A real endpoint (RS256 verification and the user read from the database) next to /healthz:
  // what the gateway's fixed cost per hop amounts to where a request does work.
  {
    name: 'auth-api /auth/me direct',
    needs: ['auth-api'],
    request: (t) => ({ url: `${t.url('auth-api')}/api/v1/auth/me`, headers: { authorization: `Bearer ${t.authToken()}` } }),
    compareWith: 'baseline: bare node:http',
  },
  {
    name: 'auth-api /auth/me via gateway',
    needs: ['auth-api', 'gateway'],
    request: (t) => ({ url: `${t.url('gateway')}/auth/api/v1/auth/me`, headers: { authorization: `Bearer ${t.authToken()}` } }),
    compareWith: 'auth-api /auth/me direct',
  },
];
