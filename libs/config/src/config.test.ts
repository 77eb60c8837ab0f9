import { z } from 'zod';
import { baseEnvShape, environmentWithRole, loadConfig } from './config';

describe('configuration', () => {
  it('parses the environment once into typed values, naming a bad variable', () => {
    const shape = { ...baseEnvShape, PORT: z.coerce.number().int().default(3000) };
    expect(loadConfig(shape, { PORT: '4000' })).toMatchObject({ PORT: 4000, SERVICE_ROLE: 'all', MIGRATE_ON_START: true });
    expect(() => loadConfig(shape, { PORT: 'eighty' })).toThrow(/PORT/);
    expect(Object.isFrozen(loadConfig(shape, {}))).toBe(true);
  });

  it('lets --role on the command line choose SERVICE_ROLE, and refuses an unknown role', () => {
    expect(loadConfig(baseEnvShape, environmentWithRole(['node', 'main.js', '--role', 'worker'], { SERVICE_ROLE: 'api' })).SERVICE_ROLE).toBe('worker');
    expect(loadConfig(baseEnvShape, environmentWithRole(['node', 'main.js'], { SERVICE_ROLE: 'api' })).SERVICE_ROLE).toBe('api');
    expect(() => loadConfig(baseEnvShape, environmentWithRole(['node', 'main.js', '--role', 'chef'], {}))).toThrow(/SERVICE_ROLE/);
  });
});
