import 'reflect-metadata';
import type { Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';
import { requiredInProduction } from './required-in-production';

export interface ConfigProblem {
  variable: string;
  message: string;
}

/** Thrown by `loadConfig`: its message names every bad or missing variable. */
export class ConfigValidationError extends Error {
  override readonly name = 'ConfigValidationError';

  constructor(
    readonly problems: ConfigProblem[],
    configName: string,
  ) {
    super(
      `Invalid configuration (${configName}): ${problems.length} problem${problems.length === 1 ? '' : 's'}\n` +
        problems.map((p) => `  - ${p.variable}: ${p.message}`).join('\n'),
    );
  }
}

/** Variables whose values are never repeated in error messages. */
const SENSITIVE = /SECRET|PASSWORD|TOKEN|KEY|URL|DSN|CREDENTIAL/i;

/**
 * Reads the variables declared on `cls` from `env`, converts numbers and booleans by the property's
 * declared type, applies `defaults` then the class-field defaults, validates, and returns the typed
 * object. Empty strings count as unset. Throws one ConfigValidationError listing every problem.
 */
export function loadConfig<C extends object>(
  cls: Type<C>,
  env: Record<string, string | undefined>,
  defaults: Partial<Record<keyof C, unknown>> = {},
): C {
  const keys = declaredKeys(cls);
  const sample = new cls() as Record<string, unknown>;
  const plain: Record<string, unknown> = {};
  for (const key of keys) {
    const raw = env[key];
    if (raw !== undefined && raw !== '') plain[key] = coerce(targetType(cls, key, sample[key]), raw);
    else if ((defaults as Record<string, unknown>)[key] !== undefined) plain[key] = (defaults as Record<string, unknown>)[key];
  }
  const config = plainToInstance(cls, plain, { exposeDefaultValues: true });
  const problems = flatten(validateSync(config, { forbidUnknownValues: false }), env);

  if ((config as { NODE_ENV?: string }).NODE_ENV === 'production') {
    for (const key of requiredInProduction(cls)) {
      if ((env[key] === undefined || env[key] === '') && !problems.some((p) => p.variable === key)) {
        problems.push({ variable: key, message: 'is required when NODE_ENV=production (a secret has no production default)' });
      }
    }
  }
  if (problems.length) throw new ConfigValidationError(problems, cls.name);
  return config;
}

function declaredKeys(cls: Type<object>): string[] {
  const validated = getMetadataStorage()
    .getTargetValidationMetadatas(cls, '', true, false)
    .map((m) => m.propertyName);
  return [...new Set([...validated, ...Object.keys(new cls()), ...requiredInProduction(cls)])];
}

/** The declared type (`PORT: number`), else the type of the class-field default (`WORKERS = 4`). */
function targetType(cls: Type<object>, key: string, fallback: unknown): unknown {
  const declared = Reflect.getMetadata('design:type', cls.prototype, key);
  if (declared === Number || declared === Boolean || declared === String) return declared;
  if (typeof fallback === 'number') return Number;
  if (typeof fallback === 'boolean') return Boolean;
  return declared;
}

function coerce(type: unknown, raw: string): unknown {
  const value = raw.trim();
  if (type === Number) return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : raw;
  if (type === Boolean) {
    if (/^(true|1|yes|on)$/i.test(value)) return true;
    if (/^(false|0|no|off)$/i.test(value)) return false;
    return raw;
  }
  return raw;
}

/** When a value has the wrong type or format, range messages ("must not be less than 0") only add noise. */
const TYPE_CHECKS = new Set(['isInt', 'isNumber', 'isBoolean', 'isString', 'isIn', 'isEnum', 'matches', 'isUrl', 'isEmail']);

function flatten(errors: ValidationError[], env: Record<string, string | undefined>): ConfigProblem[] {
  return errors.map((error) => {
    const variable = error.property;
    const constraints = Object.entries(error.constraints ?? {});
    const typeFailures = constraints.filter(([name]) => TYPE_CHECKS.has(name));
    const reasons = (typeFailures.length ? typeFailures : constraints).map(([, m]) => m.replace(new RegExp(`^${variable} `), ''));
    const raw = env[variable];
    const shown = raw !== undefined && raw !== '' && !SENSITIVE.test(variable) ? ` (got "${raw.slice(0, 80)}")` : '';
    const message = raw === undefined || raw === '' ? `is not set (${reasons.join('; ')})` : `${reasons.join('; ')}${shown}`;
    return { variable, message };
  });
}
