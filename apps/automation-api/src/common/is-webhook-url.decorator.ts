import { assertPublicUrl, assertResolvesPublic, isHttpSafetyError } from '@platform/http-safety';
import { registerDecorator, type ValidationArguments } from 'class-validator';

const REASON = Symbol('webhook-url:reason');

/**
 * Customer webhook target: https, no credentials, not a private/loopback/link-local/metadata address,
 * and, when the host resolves, every resolved address public (@platform/http-safety). A host that
 * does not resolve right now is accepted: the delivery (safeFetch) checks the addresses again at
 * connection time, so it can never reach a private address, and a temporary DNS failure does not
 * block saving an automation.
 */
export function IsWebhookUrl(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isWebhookUrl',
      target: target.constructor,
      propertyName: propertyName as string,
      async: true,
      validator: {
        async validate(value: unknown, args: ValidationArguments): Promise<boolean> {
          const holder = args.object as Record<symbol, string | undefined>;
          if (typeof value !== 'string') {
            holder[REASON] = 'must be a URL string';
            return false;
          }
          try {
            assertPublicUrl(value, { httpsOnly: true });
            await assertResolvesPublic(value, { httpsOnly: true });
            return true;
          } catch (err) {
            if (isHttpSafetyError(err, 'DNS_ERROR')) return true;
            if (isHttpSafetyError(err)) {
              holder[REASON] = err.message;
              return false;
            }
            throw err;
          }
        },
        defaultMessage(args: ValidationArguments): string {
          const reason = (args.object as Record<symbol, string | undefined>)[REASON];
          return `${args.property} must be a public https URL${reason ? `: ${reason}` : ''}`;
        },
      },
    });
  };
}
