/** `{success: true, data}`: doc 2's and part C's success envelope. */
export interface OkEnvelope<T> {
  success: true;
  data: T;
}

/** Part C's pagination meta. */
export interface PageMeta {
  total: number;
  page: number;
  limit: number;
}

/** `{success: true, data: [...], meta}`: part C's paginated envelope. */
export interface PageEnvelope<T, M = PageMeta> {
  success: true;
  data: T[];
  meta: M;
}

export function ok<T>(data: T): OkEnvelope<T> {
  return { success: true, data };
}

export function page<T, M = PageMeta>(data: T[], meta: M): PageEnvelope<T, M> {
  return { success: true, data, meta };
}
