import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { Agent, request } from 'undici';
import { EmailApiConfig } from '../config';

/** Certificates kept at most (SNS rotates its signing certificate rarely; one URL per region). */
const CACHE_SIZE = 64;
/** A signing certificate is a few kilobytes; anything much larger is not one. */
const MAX_CERT_BYTES = 64 * 1024;

/**
 * The calls this service makes to Amazon SNS, over https with undici (a time limit of SNS_TIMEOUT_MS
 * each, no redirects): downloading signing certificates (cached by URL, a failed download is not
 * cached) and confirming subscriptions (GET SubscribeURL). The URLs were checked against
 * SNS_CERT_HOST_PATTERN before; SNS_TLS_CA_FILE adds trusted authorities (a private endpoint, tests).
 */
@Injectable()
export class SnsClient implements OnApplicationShutdown {
  private readonly agent: Agent;
  private readonly certificates = new Map<string, Promise<X509Certificate>>();

  constructor(private readonly config: EmailApiConfig) {
    const ca = config.SNS_TLS_CA_FILE ? [...rootCertificates, readFileSync(config.SNS_TLS_CA_FILE, 'utf8')] : undefined;
    this.agent = new Agent({ connect: { ...(ca ? { ca } : {}), timeout: config.SNS_TIMEOUT_MS }, headersTimeout: config.SNS_TIMEOUT_MS, bodyTimeout: config.SNS_TIMEOUT_MS });
  }

  /** The certificate at `url` (cached); throws when it cannot be fetched or is no valid certificate now. */
  certificate(url: string): Promise<X509Certificate> {
    const cached = this.certificates.get(url);
    if (cached) return cached;
    const loading = this.download(url);
    if (this.certificates.size >= CACHE_SIZE) this.certificates.delete(this.certificates.keys().next().value!);
    this.certificates.set(url, loading);
    loading.catch(() => this.certificates.delete(url));
    return loading;
  }

  /** Confirms a subscription: GET SubscribeURL; throws unless SNS answers 2xx. */
  async confirmSubscription(url: string): Promise<void> {
    const res = await request(url, { method: 'GET', dispatcher: this.agent, signal: AbortSignal.timeout(this.config.SNS_TIMEOUT_MS) });
    await res.body.dump();
    if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`SNS answered ${res.statusCode} to the subscription confirmation`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent.close();
  }

  private async download(url: string): Promise<X509Certificate> {
    const res = await request(url, { method: 'GET', dispatcher: this.agent, signal: AbortSignal.timeout(this.config.SNS_TIMEOUT_MS) });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`the certificate URL answered ${res.statusCode}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_CERT_BYTES) throw new Error('the certificate is larger than a certificate can be');
      chunks.push(chunk as Buffer);
    }
    const certificate = new X509Certificate(Buffer.concat(chunks));
    const now = Date.now();
    if (now < Date.parse(certificate.validFrom) || now > Date.parse(certificate.validTo)) throw new Error('the signing certificate is not valid now');
    return certificate;
  }
}
