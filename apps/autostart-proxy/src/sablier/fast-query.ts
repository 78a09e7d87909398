// The query of a Sablier strategy call read without Express, for the raw fast path of a warm session
// (routing/): plain functions, no I/O. Only a query that the DTOs would accept as it is comes back;
// anything unusual (an unknown or repeated parameter, a bad value, names and group together) gives
// undefined, and the call goes through Nest, whose validation answers it (400 problem).
import { parseGoDuration } from '../catalog/go-duration';
import { LIMITS, NAME, type BlockingQueryDto, type DynamicQueryDto } from './sablier.dto';

export type FastQuery = { kind: 'dynamic'; query: DynamicQueryDto } | { kind: 'blocking'; query: BlockingQueryDto };

const ALLOWED = {
  dynamic: new Set(['names', 'group', 'session_duration', 'theme', 'display_name', 'show_details', 'refresh_frequency']),
  blocking: new Set(['names', 'group', 'session_duration', 'timeout']),
};

function duration(value: string, [min, max]: readonly [number, number]): boolean {
  const ms = parseGoDuration(value);
  return ms !== undefined && ms >= min && ms <= max;
}

/** `/api/strategies/dynamic?names=a,b&session_duration=5m` → the query, or undefined (Nest answers it). */
export function parseFastQuery(url: string): FastQuery | undefined {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const kind = path === '/api/strategies/dynamic' ? 'dynamic' : path === '/api/strategies/blocking' ? 'blocking' : undefined;
  if (!kind) return undefined;
  const params = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  const out: Record<string, unknown> = {};
  const names: string[] = [];
  for (const [key, value] of params) {
    if (!ALLOWED[kind].has(key)) return undefined;
    if (key === 'names') {
      for (const n of value.split(',')) if (n.trim()) names.push(n.trim());
      continue;
    }
    if (key in out) return undefined;
    out[key] = value;
  }
  if (names.length > 0) {
    if (names.length > LIMITS.names || !names.every((n) => NAME.test(n))) return undefined;
    out.names = names;
  }
  if ((out.names === undefined) === (out.group === undefined)) return undefined;
  if (out.group !== undefined && !NAME.test(out.group as string)) return undefined;
  if (out.session_duration !== undefined && !duration(out.session_duration as string, LIMITS.session)) return undefined;
  if (kind === 'blocking') {
    if (out.timeout !== undefined && !duration(out.timeout as string, LIMITS.timeout)) return undefined;
    return { kind, query: out as BlockingQueryDto };
  }
  if (out.refresh_frequency !== undefined && !duration(out.refresh_frequency as string, LIMITS.refresh)) return undefined;
  if (out.theme !== undefined && (out.theme as string).length > LIMITS.theme) return undefined;
  if (out.display_name !== undefined && (out.display_name as string).length > LIMITS.displayName) return undefined;
  if (out.show_details !== undefined) {
    if (!['true', '1', 'false', '0'].includes(out.show_details as string)) return undefined;
    out.show_details = out.show_details === 'true' || out.show_details === '1';
  }
  return { kind, query: out as DynamicQueryDto };
}
