import { missingFields, parseAmount, parseDate, parseInvoiceText } from './invoice-fields';

describe('invoice fields', () => {
  it.each([
    ['1,234.56', 1234.56], ['1.234,56', 1234.56], ['$ 1234', 1234], ['1234.5 USD', 1234.5], ['12,50', 12.5], ['1,000,000', 1000000], ['abc', null],
  ])('parseAmount(%p) = %p', (raw, n) => expect(parseAmount(raw)).toBe(n));

  it.each([
    ['2026-11-05', '2026-11-05'], ['05/11/2026', '2026-11-05'], ['5-11-2026', '2026-11-05'], ['05.11.2026', '2026-11-05'], ['31/02/2026', null], ['Nov 5', null],
  ])('parseDate(%p) = %p', (raw, d) => expect(parseDate(raw)).toBe(d));

  it('reads an English invoice', () => {
    const text = [
      'Supplier: Transportes del Norte SA de CV',
      'Invoice No: INV-2026-0042',
      'Invoice Date: 2026-11-05',
      'Due Date: 05/12/2026',
      'Currency: MXN',
      'Container MSCU1234566, B/L MEDUAB123456',
      'Freight Manzanillo - CDMX 10,000.00',
      'Subtotal 10,000.00',
      'IVA 16% 1,600.00',
      'Total 11,600.00 MXN',
    ].join('\n');
    expect(parseInvoiceText(text)).toEqual({
      supplier: 'Transportes del Norte SA de CV',
      invoice_number: 'INV-2026-0042',
      invoice_date: '2026-11-05',
      due_date: '2026-12-05',
      currency: 'MXN',
      subtotal: 10000,
      tax: 1600,
      tax_rate_stated: 16,
      total: 11600,
      shipment_ref: 'MSCU1234566',
    });
  });

  it('reads a Spanish invoice with the currency next to the total', () => {
    const text = ['Proveedor: Agencia Aduanal López', 'Folio: A-981', 'Fecha: 20/10/2026', 'Referencia: EMB-7781', 'Subtotal $ 2.500,00', 'Impuesto (IVA 8%) $ 200,00', 'Total $ 2.700,00 USD'].join('\n');
    expect(parseInvoiceText(text)).toMatchObject({ supplier: 'Agencia Aduanal López', invoice_number: 'A-981', invoice_date: '2026-10-20', currency: 'USD', subtotal: 2500, tax: 200, tax_rate_stated: 8, total: 2700, shipment_ref: 'EMB-7781' });
  });

  it('names the missing required fields', () => {
    expect(missingFields(parseInvoiceText('Hello\nNothing here'))).toEqual(['supplier', 'invoice_number', 'invoice_date', 'currency', 'total']);
    expect(missingFields(parseInvoiceText('Supplier: X\nInvoice Date: 2026-01-01\nInvoice: 1\nTotal 5 USD'))).toEqual([]);
    expect(parseInvoiceText('Invoice Date: 2026-01-01').invoice_number).toBeNull();
  });
});
