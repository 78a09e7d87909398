import type { INestApplicationContext } from '@nestjs/common';
import { isEmail } from 'class-validator';
import { parseArgs } from 'node:util';
import { FiscalAuthService } from '../fiscal/fiscal-auth.service';
import { LOGISTICS_ROLES, type LogisticsRole } from '../logistics/entities/logistics-user.entity';
import { LogisticsUsersService } from '../logistics/logistics-users.service';

export const CREATE_USER_USAGE =
  'create-user --realm fiscal|logistics --email <email> --password <password> [--role <role>] [--full-name <name>]';

export interface CreateUserArgs {
  realm: 'fiscal' | 'logistics';
  email: string;
  password: string;
  role: string;
  fullName: string | null;
}

/** Parses and checks the command's arguments; throws an Error naming every problem. */
export function parseCreateUserArgs(args: string[]): CreateUserArgs {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        realm: { type: 'string' },
        email: { type: 'string' },
        password: { type: 'string' },
        role: { type: 'string' },
        'full-name': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }) as { values: Record<string, string | undefined> });
  } catch (err) {
    throw new Error(`${(err as Error).message}\nusage: ${CREATE_USER_USAGE}`);
  }
  const problems: string[] = [];
  const realm = values['realm'];
  if (realm !== 'fiscal' && realm !== 'logistics') problems.push('--realm must be fiscal or logistics');
  const email = values['email']?.trim() ?? '';
  if (!isEmail(email)) problems.push('--email must be an email address');
  const password = values['password'] ?? '';
  if (password.length < 8) problems.push('--password must have at least 8 characters');
  const role = values['role'] ?? (realm === 'logistics' ? 'driver' : 'user');
  if (realm === 'logistics' && !(LOGISTICS_ROLES as readonly string[]).includes(role)) {
    problems.push(`--role must be one of ${LOGISTICS_ROLES.join(', ')} in the logistics realm`);
  }
  if (!role.trim()) problems.push('--role must not be empty');
  if (problems.length) throw new Error(`${problems.join('; ')}\nusage: ${CREATE_USER_USAGE}`);
  return { realm: realm as CreateUserArgs['realm'], email, password, role, fullName: values['full-name']?.trim() || null };
}

/** `node dist/apps/auth-api/main.js create-user …`: creates a user; fails when the email exists. */
export async function createUserCommand(ctx: INestApplicationContext, args: string[]): Promise<void> {
  const input = parseCreateUserArgs(args);
  if (input.realm === 'fiscal') {
    const created = await ctx.get(FiscalAuthService, { strict: false }).createUser(input);
    if (!created) throw new Error(`A user with email ${input.email.toLowerCase()} already exists in the fiscal realm`);
  } else {
    await ctx
      .get(LogisticsUsersService, { strict: false })
      .create({ ...input, role: input.role as LogisticsRole })
      .catch((err: Error) => {
        throw new Error(err.message.includes('already exists') ? `A user with email ${input.email.toLowerCase()} already exists in the logistics realm` : err.message);
      });
  }
  process.stdout.write(`created ${input.realm} user ${input.email.toLowerCase()} with role ${input.role}\n`);
}
