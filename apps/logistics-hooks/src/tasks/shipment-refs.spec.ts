import { containerCheckDigit, extractShipmentRefs, isValidContainerNumber } from './shipment-refs';

describe('ISO 6346 container check digits', () => {
  it.each([
    ['CSQU305438', 3], // the standard's published example
    ['MSCU123456', 6],
    ['MAEU765432', 0],
    ['TGHU999999', 5],
    ['ONEU001122', 8],
    ['ABCJ123456', 3], // category J
    ['XYZZ000001', 0], // category Z
    ['MSCU100007', 0], // remainder 10 counts as 0
  ])('%s → %i', (first10, digit) => {
    expect(containerCheckDigit(first10)).toBe(digit);
    expect(isValidContainerNumber(`${first10}${digit}`)).toBe(true);
    expect(isValidContainerNumber(`${first10}${(digit + 1) % 10}`)).toBe(false);
  });

  it.each(['CSQ3054383', 'CSQA3054383', '1SQU3054383', 'CSQU305438', 'CSQU30543833', ''])('%p is malformed', (value) => {
    expect(isValidContainerNumber(value)).toBe(false);
  });

  it('accepts spaces, hyphens and lower case', () => {
    expect(isValidContainerNumber('csqu 305438 3')).toBe(true);
    expect(isValidContainerNumber('CSQU-305438-3')).toBe(true);
  });
});

describe('extractShipmentRefs', () => {
  it.each<[string, string, { containers?: string[]; billsOfLading?: string[]; bookings?: string[] }]>([
    ['a valid container', 'Container CSQU3054383 arrived', { containers: ['CSQU3054383'] }],
    ['a container written with spaces', 'container MSCU 123456 6 at the yard', { containers: ['MSCU1234566'] }],
    ['a wrong check digit is not a container', 'container MSCU1234567', {}],
    ['a bill of lading after B/L', 'B/L no. MEDUAB123456 is missing', { billsOfLading: ['MEDUAB123456'] }],
    ['a bill of lading after "bill of lading"', 'bill of lading: 7788990011 please', { billsOfLading: ['7788990011'] }],
    ['a carrier-prefixed bill of lading', 'see ONEYSHAU12345600 for details', { billsOfLading: ['ONEYSHAU12345600'] }],
    ['a booking number', 'Booking number 987654321 confirmed', { bookings: ['987654321'] }],
    ['a booking after bkg#', 'bkg# SHA-2345678', { bookings: ['SHA-2345678'] }],
    ['a Spanish booking', 'reserva: MX1234567', { bookings: ['MX1234567'] }],
    ['words without digits are not references', 'booking confirmed, BL released', {}],
    ['a word starting with BL is not a bill of lading', 'BLUE123456 paint', {}],
    ['each reference once', 'CSQU3054383 and again CSQU 305438 3', { containers: ['CSQU3054383'] }],
    [
      'all three kinds',
      'Containers CSQU3054383, MAEU7654320; HBL: HB20240001; booking ref BK778899',
      { containers: ['CSQU3054383', 'MAEU7654320'], billsOfLading: ['HB20240001'], bookings: ['BK778899'] },
    ],
  ])('%s', (_name, text, expected) => {
    expect(extractShipmentRefs(text)).toEqual({ containers: [], billsOfLading: [], bookings: [], ...expected });
  });
});
