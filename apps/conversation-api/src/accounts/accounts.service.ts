import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { notFound } from '../common/errors';
import { AccountsRepository, type Account, type AccountSettings } from './accounts.repository';
import { hoursProblems, isTimeZone, type BusinessHours } from './business-hours';
import type { UpdateAccountDto } from './dto/account.dto';

export type { Account, AccountSettings } from './accounts.repository';

/** Accounts (tenants): opening one with its roles and administrator is the OpenAccount use case. */
@Injectable()
export class AccountsService {
  constructor(private readonly accounts: AccountsRepository) {}

  /** Stores a new account (nothing else: see OpenAccount). */
  add(name: string): Promise<Account> {
    return this.accounts.insert(name);
  }

  /** The next per-account conversation number (`display_id`), atomically (inside the caller's transaction). */
  nextDisplayId(accountId: string): Promise<number> {
    return this.accounts.nextDisplayId(accountId);
  }

  /** The next `n` display ids of the account's conversations, in order (in the caller's transaction). */
  nextDisplayIds(accountId: string, n: number): Promise<number[]> {
    return this.accounts.nextDisplayIds(accountId, n);
  }

  /** The account's name, time zone, business hours and out-of-office reply. */
  async settings(accountId: string): Promise<AccountSettings> {
    const settings = await this.accounts.settings(accountId);
    if (!settings) throw notFound('account');
    return settings;
  }

  /**
   * Changes what the body holds: 422 for a time zone the runtime does not know, a day whose close is
   * not after its open, or an out-of-office reply switched on without a message.
   */
  async updateSettings(accountId: string, dto: UpdateAccountDto): Promise<AccountSettings> {
    const errors: Array<{ field: string; message: string; code: string }> = [];
    if (dto.time_zone !== undefined && !isTimeZone(dto.time_zone)) errors.push({ field: 'time_zone', message: `unknown time zone ${dto.time_zone}; use an IANA name such as Europe/Berlin`, code: 'invalid_time_zone' });
    const hours = dto.business_hours === undefined ? undefined : dto.business_hours === null ? null : (Object.fromEntries(Object.entries(dto.business_hours).filter(([, v]) => v !== undefined)) as BusinessHours);
    if (hours) for (const [day, message] of hoursProblems(hours)) errors.push({ field: `business_hours.${day}.close`, message, code: 'invalid_range' });
    if (dto.out_of_office?.enabled) {
      const message = dto.out_of_office.message === undefined ? (await this.settings(accountId)).outOfOffice.message : dto.out_of_office.message;
      if (!message) errors.push({ field: 'out_of_office.message', message: 'an enabled out-of-office reply needs a message', code: 'required' });
    }
    if (errors.length) throw new ApiError(422, 'VALIDATION_ERROR', 'Invalid account settings', { errors });
    const updated = await this.accounts.updateSettings(accountId, {
      name: dto.name,
      timeZone: dto.time_zone,
      businessHours: hours,
      outOfOfficeEnabled: dto.out_of_office?.enabled,
      outOfOfficeMessage: dto.out_of_office?.message,
    });
    if (!updated) throw notFound('account');
    return updated;
  }
}
