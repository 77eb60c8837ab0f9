import { isUniqueViolation, unavailableDependency } from './dependency-errors';

describe('isUniqueViolation', () => {
  it('recognises every shape in which Prisma and the pg adapter report a unique violation', () => {
    expect(isUniqueViolation({ code: 'P2002' })).toBe(true);
    expect(isUniqueViolation({ code: 'P2010', meta: { code: '23505' } })).toBe(true);
    expect(isUniqueViolation({ code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: '23505' } } } })).toBe(true);
    expect(isUniqueViolation({ name: 'DriverAdapterError', cause: { code: '23505' } })).toBe(true);
    expect(isUniqueViolation({ code: 'P2010', meta: { code: '57014' } })).toBe(false);
    expect(isUniqueViolation({ code: 'P2025' })).toBe(false);
    expect(isUniqueViolation(undefined)).toBe(false);
  });
});

describe('unavailableDependency', () => {
  it("takes ioredis' command and socket timeouts for Redis being down, wrapped or not", () => {
    expect(unavailableDependency(new Error('Command timed out'))).toBe('cache');
    expect(unavailableDependency({ message: 'wrapped', cause: new Error("Socket timeout. Expecting data, but didn't receive any in 2000ms.") })).toBe('cache');
    expect(unavailableDependency(new Error('The request timed out'))).toBeUndefined();
  });
});
