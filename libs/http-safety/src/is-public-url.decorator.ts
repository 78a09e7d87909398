import { ValidationArguments, ValidationOptions, registerDecorator } from 'class-validator';
import { isHttpSafetyError } from './errors';
import { LookupFn } from './lookup';
import { assertPublicUrl, assertResolvesPublic } from './url';

export interface PublicUrlOptions {
  /** Default true for @IsPublicHttpsUrl, false for @IsPublicUrl. */
  httpsOnly?: boolean;
  /** A value, or a function read at validation time (e.g. `() => config.CRAWL_ALLOW_PRIVATE`). */
  allowPrivate?: boolean | (() => boolean);
  /** Resolve the host and check its addresses (asynchronous). Default true. */
  resolve?: boolean;
  lookup?: LookupFn;
  dnsTimeoutMs?: number;
}

const MESSAGE = Symbol('http-safety:message');

/**
 * Validates a customer-given URL: syntax, scheme, no credentials, and (asynchronously) that the
 * host resolves only to public addresses. The error message says what is wrong with the URL.
 */
export function IsPublicUrl(options: PublicUrlOptions = {}, validationOptions?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: options.httpsOnly ? 'isPublicHttpsUrl' : 'isPublicUrl',
      target: target.constructor,
      propertyName: propertyName as string,
      options: validationOptions,
      async: options.resolve !== false,
      validator: {
        validate(value: unknown, args: ValidationArguments): boolean | Promise<boolean> {
          const holder = args.object as Record<symbol, Record<string, string>>;
          const fail = (message: string) => {
            holder[MESSAGE] = { ...(holder[MESSAGE] ?? {}), [args.property]: message };
            return false;
          };
          if (typeof value !== 'string') return fail('must be a URL string');
          const allowPrivate =
            typeof options.allowPrivate === 'function' ? options.allowPrivate() : options.allowPrivate === true;
          const policy = {
            httpsOnly: options.httpsOnly,
            allowPrivate,
            lookup: options.lookup,
            dnsTimeoutMs: options.dnsTimeoutMs,
          };
          try {
            assertPublicUrl(value, policy);
          } catch (err) {
            if (isHttpSafetyError(err)) return fail(err.message);
            throw err;
          }
          if (options.resolve === false) return true;
          return assertResolvesPublic(value, policy).then(
            () => true,
            (err: unknown) => {
              if (isHttpSafetyError(err)) return fail(err.message);
              throw err;
            },
          );
        },
        defaultMessage(args: ValidationArguments): string {
          const holder = args.object as Record<symbol, Record<string, string> | undefined>;
          const reason = holder[MESSAGE]?.[args.property];
          const kind = options.httpsOnly ? 'a public https URL' : 'a public http(s) URL';
          return `${args.property} must be ${kind}${reason ? `: ${reason}` : ''}`;
        },
      },
    });
  };
}

/** `@IsPublicUrl` with `httpsOnly: true` (webhook targets). */
export function IsPublicHttpsUrl(
  options: Omit<PublicUrlOptions, 'httpsOnly'> = {},
  validationOptions?: ValidationOptions,
): PropertyDecorator {
  return IsPublicUrl({ ...options, httpsOnly: true }, validationOptions);
}
