import { Injectable } from '@nestjs/common';
import { hmacSignature, isHttpSafetyError, safeFetch, type LookupFn } from '@platform/http-safety';
import { EmailApiConfig } from '../../config';
import { renderTemplate } from '../../emails/render';
import type { ExecutionTrigger } from '../execution';
import type { EngineContact, StepDef } from '../executions.repository';
import type { WebhookConfig } from '../step-config';
import { StepError } from './step-error';

/** Time limit of the whole exchange, redirects included. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Redirects followed (each hop's address checked again). */
export const WEBHOOK_MAX_REDIRECTS = 3;
/** Larger answers are cut off (the step fails: a receiver answers briefly). */
export const WEBHOOK_MAX_RESPONSE_BYTES = 1024 * 1024;
/** The part of the answer's body kept in the step run's output. */
export const WEBHOOK_STORED_BODY_CHARS = 4096;

export const SIGNATURE_HEADER = 'X-Webhook-Signature';
export const TIMESTAMP_HEADER = 'X-Webhook-Timestamp';
export const DELIVERY_HEADER = 'X-Webhook-Id';

export interface WebhookCall {
  executionId: string;
  workflowId: string;
  /** Stable across retries and replicas: `<execution id>:<step run seq>`. */
  deliveryId: string;
  trigger: ExecutionTrigger;
  context: Record<string, unknown>;
  /** The key the body is signed with (the SHA-256 hex of the project's secret key). */
  signingKey: string;
}

export interface WebhookResult {
  status: number;
  url: string;
  redirects: string[];
  body: string;
  truncated: boolean;
}

/** Placeholders in string values of a JSON body (unescaped: it is no HTML). */
function renderDeep(value: unknown, vars: Record<string, unknown>, depth = 0): unknown {
  if (typeof value === 'string') return renderTemplate(value, vars, false);
  if (depth > 32 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, vars, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, vars, depth + 1)]));
}

/**
 * WEBHOOK: one HTTP request through `@platform/http-safety` — private, loopback, link-local and
 * metadata addresses refused (checked on the address each connection really uses, so DNS cannot
 * point a public name at them), every redirect hop checked again (at most 3), 10 s for the whole
 * exchange. A 2xx answer completes the step (status and the first 4 KiB of the body stored); any
 * other answer or a network failure is retried with backoff; a refused address fails at once.
 *
 * Body: `config.body` (a string, or JSON whose string values take `{{placeholders}}` of the
 * contact, `event.*` and `context.*`), else for every method but GET the default JSON
 * `{workflowId, executionId, stepId, contact: {id, email, subscribed, data}, event, context}`.
 * Signed: `X-Webhook-Timestamp: <unix seconds>` and `X-Webhook-Signature: sha256=<hex>`, the
 * HMAC-SHA256 of `<timestamp>.<body>` keyed with the SHA-256 hex of the project's secret key (a
 * rotation of the keys changes it). `X-Webhook-Id` and `Idempotency-Key` carry the delivery id,
 * the same on every retry (also after a crash between the request and its record), so that the
 * receiver can drop duplicates: delivery is at least once.
 */
@Injectable()
export class WebhookStep {
  /** Tests inject a resolver; production uses the system's. */
  lookup?: LookupFn;

  constructor(private readonly config: EmailApiConfig) {}

  async call(call: WebhookCall, step: StepDef, contact: EngineContact): Promise<WebhookResult> {
    const config = step.config as unknown as WebhookConfig;
    const method = config.method ?? 'POST';
    const vars = { ...contact.data, data: contact.data, email: contact.email, id: contact.id, subscribed: contact.subscribed, event: call.trigger.data ?? {}, context: call.context };
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(config.headers ?? {})) headers[name] = renderTemplate(value, vars, false);
    let body: string | undefined;
    if (config.body !== undefined && config.body !== null) {
      body = typeof config.body === 'string' ? renderTemplate(config.body, vars, false) : JSON.stringify(renderDeep(config.body, vars));
      if (typeof config.body !== 'string' && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
    } else if (method !== 'GET') {
      body = JSON.stringify({
        workflowId: call.workflowId,
        executionId: call.executionId,
        stepId: step.id,
        contact: { id: contact.id, email: contact.email, subscribed: contact.subscribed, data: contact.data },
        event: call.trigger,
        context: call.context,
      });
      headers['Content-Type'] = 'application/json';
    }
    const timestamp = String(Math.floor(Date.now() / 1000));
    headers['User-Agent'] = 'email-api-workflows/1.0';
    headers[TIMESTAMP_HEADER] = timestamp;
    headers[SIGNATURE_HEADER] = hmacSignature(`${timestamp}.${body ?? ''}`, call.signingKey);
    headers[DELIVERY_HEADER] = call.deliveryId;
    headers['Idempotency-Key'] = call.deliveryId;
    let res;
    try {
      res = await safeFetch(
        config.url,
        { method, headers, body },
        {
          allowPrivate: this.config.WORKFLOW_WEBHOOK_ALLOW_PRIVATE,
          lookup: this.lookup,
          timeoutMs: WEBHOOK_TIMEOUT_MS,
          headersTimeoutMs: WEBHOOK_TIMEOUT_MS,
          bodyTimeoutMs: WEBHOOK_TIMEOUT_MS,
          maxRedirects: WEBHOOK_MAX_REDIRECTS,
          maxBytes: WEBHOOK_MAX_RESPONSE_BYTES,
        },
      );
    } catch (err) {
      if (isHttpSafetyError(err)) {
        const permanent = err.code === 'BLOCKED_ADDRESS' || err.code === 'INVALID_URL';
        throw new StepError(`${err.code}: ${err.message}`, permanent, { url: config.url, error: err.code });
      }
      throw new StepError(`request failed: ${(err as Error).message}`, false, { url: config.url });
    }
    const text = res.text();
    const result: WebhookResult = { status: res.status, url: res.url, redirects: res.redirects, body: text.slice(0, WEBHOOK_STORED_BODY_CHARS), truncated: text.length > WEBHOOK_STORED_BODY_CHARS };
    if (res.status < 200 || res.status > 299) throw new StepError(`the receiver answered ${res.status}`, false, result);
    return result;
  }
}
