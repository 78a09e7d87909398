import { Deprecated, deprecationHeaders } from './deprecated.decorator';

describe('@Deprecated', () => {
  it('gives the Deprecation, Sunset and Link headers', () => {
    expect(deprecationHeaders({ since: '2026-11-01T00:00:00Z', sunset: '2027-06-01T00:00:00Z', successor: '/api/v1/contacts' })).toEqual({
      Deprecation: '@1793491200',
      Sunset: 'Tue, 01 Jun 2027 00:00:00 GMT',
      Link: '</api/v1/contacts>; rel="successor-version"',
    });
    expect(deprecationHeaders({ since: '2026-11-01T00:00:00Z', sunset: '2027-06-01T00:00:00Z' })).not.toHaveProperty('Link');
  });

  it('refuses a sunset less than six months after the deprecation, or dates that are not dates', () => {
    expect(() => Deprecated({ since: '2026-11-01', sunset: '2027-03-01' })).toThrow(/at least six months/);
    expect(() => Deprecated({ since: 'soon', sunset: '2027-06-01' })).toThrow(/at least six months/);
    expect(() => Deprecated({ since: '2026-11-01', sunset: '2027-05-01' })).not.toThrow();
  });
});
