import { RequestValidationException, type FieldError } from '@platform/errors';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsNumber, IsOptional, IsString, ValidateIf, ValidateNested } from 'class-validator';
import { PlatformValidationPipe } from './validation';

class Link {
  @IsString() url: string;
}
class Contact {
  @IsString() ig_id: string;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => Link) links?: Link[];
}
class Settings {
  @IsOptional() @IsInt() limit?: number;
}
class Body {
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => Contact) contacts?: Contact[];
  /** class-validator's documented form for arrays: @ValidateNested() without `each`. */
  @IsOptional() @ValidateNested() @Type(() => Link) photos?: Link[];
  @IsOptional() @ValidateNested() @Type(() => Settings) settings?: Settings;
  @IsOptional() @IsString() mode?: string;
  @ValidateIf((o: Body) => o.mode === 'nested') @ValidateNested({ each: true }) @Type(() => Link) only_when_nested?: Link[];
}

const pipe = new PlatformValidationPipe();

async function fieldErrors(body: unknown): Promise<FieldError[]> {
  try {
    await pipe.transform(body, { type: 'body', metatype: Body });
  } catch (e) {
    if (e instanceof RequestValidationException) return e.errors;
    throw e;
  }
  return [];
}

describe('PlatformValidationPipe', () => {
  it.each([
    [{ contacts: [[]] }, 'contacts.0', 'each value in contacts'],
    [{ contacts: [{ ig_id: 'a' }, [{ ig_id: 'b' }]] }, 'contacts.1', 'each value in contacts'],
    [{ contacts: [[[]]] }, 'contacts.0', 'each value in contacts'],
    [{ photos: [[]] }, 'photos.0', 'each value in photos'],
    [{ contacts: [{ ig_id: 'a', links: [[]] }] }, 'contacts.0.links.0', 'each value in links'],
    [{ settings: [] }, 'settings', 'settings'],
    [{ settings: [{ limit: 1 }] }, 'settings', 'settings'],
  ])('refuses %j: the value at %s must be an object', async (body, field, subject) => {
    expect(await fieldErrors(body)).toEqual([{ field, message: `${subject} must be an object, not an array`, code: 'invalid_type' }]);
  });

  it('lists the refused item with the other errors of the body, and nothing found inside it', async () => {
    const errors = await fieldErrors({ contacts: [[{ ig_id: 1 }], { ig_id: 2 }], mode: 3 });
    expect(errors.map((e) => e.field).sort()).toEqual(['contacts.0', 'contacts.1.ig_id', 'mode']);
    await expect(pipe.transform({ contacts: [{ ig_id: 'a', links: [[]] }] }, { type: 'body', metatype: Body })).rejects.toThrow(
      'contacts.0.links.0: each value in links must be an object, not an array',
    );
  });

  it('accepts objects in arrays, single objects and absent values, and returns the transformed body', async () => {
    const body = { contacts: [{ ig_id: 'a', links: [{ url: 'u' }] }], photos: [{ url: 'p' }], settings: { limit: 2 } };
    const value = (await pipe.transform(body, { type: 'body', metatype: Body })) as Body;
    expect(value.contacts?.[0]).toBeInstanceOf(Contact);
    expect(value.contacts?.[0].links?.[0]).toBeInstanceOf(Link);
    expect(value.settings).toBeInstanceOf(Settings);
    expect(await fieldErrors({})).toEqual([]);
    expect(await fieldErrors({ contacts: [] })).toEqual([]);
  });

  it('leaves primitives and null items to class-validator (its own nestedValidation error)', async () => {
    expect(await fieldErrors({ contacts: [null, 1] })).toEqual([
      expect.objectContaining({ field: 'contacts.0', code: 'invalid_type' }),
      expect.objectContaining({ field: 'contacts.1', code: 'invalid_type' }),
    ]);
  });

  it('skips a property whose condition rules it out, as class-validator does', async () => {
    expect(await fieldErrors({ mode: 'flat', only_when_nested: [[]] })).toEqual([]);
    expect(await fieldErrors({ mode: 'nested', only_when_nested: [[]] })).toEqual([expect.objectContaining({ field: 'only_when_nested.0' })]);
  });

  it.each([
    [{ settings: { limit: 1e20 } }, 'settings.limit'],
    [{ settings: { limit: -(2 ** 53) } }, 'settings.limit'],
  ])('refuses %j: a number beyond the safe range is too big, whatever the DTO allows', async (body, field) => {
    expect(await fieldErrors(body)).toEqual([{ field, message: `limit must be a finite number between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`, code: 'too_big' }]);
  });

  it('accepts the largest safe integer', async () => {
    expect(await fieldErrors({ settings: { limit: Number.MAX_SAFE_INTEGER } })).toEqual([]);
  });

  it("keeps the platform's options: unknown properties are refused", async () => {
    expect(await fieldErrors({ contacts: [{ ig_id: 'a', extra: 1 }] })).toEqual([expect.objectContaining({ field: 'contacts.0.extra', code: 'unrecognized_key' })]);
  });
});

class Money {
  @IsOptional() @IsNumber({ maxDecimalPlaces: 2 }) amount?: number;
}
class Invoice {
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => Money) payments?: Money[];
}

describe('PlatformValidationPipe when a validator throws', () => {
  // Found by `npm run fuzz`: logistics-hooks' POST /ap-expectations answered 500 for {"amount": 1e-22}.
  it('answers a validation error naming the number written with an exponent, not a 500', async () => {
    await expect(pipe.transform({ payments: [{ amount: 1e-22 }] }, { type: 'body', metatype: Invoice })).rejects.toThrow(RequestValidationException);
    try {
      await pipe.transform({ payments: [{ amount: 1e-22 }] }, { type: 'body', metatype: Invoice });
    } catch (e) {
      expect((e as RequestValidationException).errors).toEqual([expect.objectContaining({ field: 'payments.0.amount', message: expect.stringContaining('1e-22') })]);
    }
  });

  it('still validates ordinary decimals', async () => {
    const value = (await pipe.transform({ payments: [{ amount: 12.5 }] }, { type: 'body', metatype: Invoice })) as Invoice;
    expect(value.payments?.[0].amount).toBe(12.5);
    await expect(pipe.transform({ payments: [{ amount: 12.505 }] }, { type: 'body', metatype: Invoice })).rejects.toThrow(RequestValidationException);
  });
});

class Page {
  @IsOptional() @Type(() => Number) @IsInt() offset?: number;
}

describe('PlatformValidationPipe when a converter throws', () => {
  // Found by `npm run fuzz`: logistics-hooks' POST /crm-data answered 500 for {"offset": {"toString": -3}}.
  it('answers a validation error naming the object it cannot convert, not a 500', async () => {
    const error = await pipe.transform({ offset: { toString: -3 } }, { type: 'body', metatype: Page }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationException);
    expect((error as RequestValidationException).errors).toEqual([expect.objectContaining({ field: 'offset', message: expect.stringContaining('toString') })]);
    expect(await pipe.transform({ offset: '5' }, { type: 'body', metatype: Page })).toEqual({ offset: 5 });
  });
});
