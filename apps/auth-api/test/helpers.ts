import { sign } from 'node:crypto';
import { SigningKeys } from '../src/keys/signing-keys';

let ipCounter = 0;

/** A fresh client address per call (trust proxy is on), so tests do not share login rate-limit windows. */
export function freshIp(): string {
  ipCounter += 1;
  return `10.${Math.floor(ipCounter / 65_536) % 256}.${Math.floor(ipCounter / 256) % 256}.${ipCounter % 256}`;
}

/** A JWT signed with `keys` (RS256) carrying exactly `claims`: for expired or forged tokens. */
export function craftToken(keys: SigningKeys, claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const h = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: keys.kid, ...header })).toString('base64url');
  const p = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${h}.${p}.${sign('sha256', Buffer.from(`${h}.${p}`), keys.privateKey).toString('base64url')}`;
}
