/**
 * Carrier detection from a container's owner prefix (the spec's table, part F) or a bill of lading's
 * SCAC prefix. Plain data and functions.
 */
export interface Carrier {
  code: string;
  name: string;
}

export const CARRIER_PREFIXES: Record<string, { name: string; prefixes: string[] }> = {
  ONE: { name: 'Ocean Network Express', prefixes: ['ONEU', 'KKTU', 'TEMU', 'NYKU', 'ONEY'] },
  MSC: { name: 'MSC', prefixes: ['MEDU', 'MSCU', 'MSRU', 'GESU', 'TRHU'] },
  MAERSK: { name: 'Maersk', prefixes: ['MAEU', 'MSKU', 'MRKU', 'MRSU', 'TCLU', 'TCNU'] },
  CMA: { name: 'CMA CGM', prefixes: ['CMAU', 'CMDU', 'CXDU', 'CGMU'] },
  COSCO: { name: 'COSCO', prefixes: ['COSU', 'CSLU', 'CCLU', 'CSNU'] },
  HMM: { name: 'HMM', prefixes: ['HDMU', 'HMMU'] },
  EVERGREEN: { name: 'Evergreen', prefixes: ['EGLV', 'EGHU', 'EGSU'] },
  YANG_MING: { name: 'Yang Ming', prefixes: ['YMLU', 'YMJA'] },
  OOCL: { name: 'OOCL', prefixes: ['OOLU', 'OOCL'] },
  WAN_HAI: { name: 'Wan Hai', prefixes: ['WHLU', 'WHSU', 'WHLC'] },
  ZIM: { name: 'ZIM', prefixes: ['ZIMU'] },
};

const BY_PREFIX = new Map<string, Carrier>(
  Object.entries(CARRIER_PREFIXES).flatMap(([code, c]) => c.prefixes.map((p) => [p, { code, name: c.name }] as const)),
);

/** The carrier whose prefix starts the reference (`CMAU1234567`, `MEDUAB123456`), or null. */
export function detectCarrier(reference: string): Carrier | null {
  return BY_PREFIX.get(reference.slice(0, 4).toUpperCase()) ?? null;
}
