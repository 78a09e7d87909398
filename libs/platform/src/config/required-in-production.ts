import 'reflect-metadata';
import { ValidateIf } from 'class-validator';

const REQUIRED_IN_PRODUCTION = Symbol.for('platform:required-in-production');

/**
 * Marks a secret: optional in development and test (its other validators run only when it is set),
 * required when NODE_ENV=production. The check reads the environment itself, so a class-field default
 * never satisfies it: no secret has a default that works in production.
 * Do not add `@IsOptional()` as well (it is implied).
 */
export function RequiredInProduction(): PropertyDecorator {
  return (target: object, propertyKey: string | symbol) => {
    const own: string[] = Reflect.getOwnMetadata(REQUIRED_IN_PRODUCTION, target) ?? [
      ...((Reflect.getMetadata(REQUIRED_IN_PRODUCTION, target) as string[] | undefined) ?? []),
    ];
    own.push(String(propertyKey));
    Reflect.defineMetadata(REQUIRED_IN_PRODUCTION, own, target);
    ValidateIf((_obj: object, value: unknown) => value !== undefined && value !== null && value !== '')(target, propertyKey as string);
  };
}

/** Names of the properties of `cls` (and its parents) marked `@RequiredInProduction()`. */
export function requiredInProduction(cls: abstract new (...args: never[]) => unknown): string[] {
  return [...new Set((Reflect.getMetadata(REQUIRED_IN_PRODUCTION, cls.prototype) as string[] | undefined) ?? [])];
}
