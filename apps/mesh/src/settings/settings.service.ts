import { mesh } from '@platform/contracts';
import type { Redis } from 'ioredis';
import type { SettingsRepository } from './settings.repository';

export type Settings = mesh.MeshSettings;

/**
 * Mesh-wide settings: env defaults, overridden by what an operator PUT (kept in Postgres, so every
 * node and every restart sees it). A change is announced on Redis so the other nodes reload.
 */
export class SettingsService {
  private current: Settings;
  private readonly listeners: Array<(settings: Settings) => void> = [];

  constructor(
    private readonly repository: SettingsRepository,
    private readonly redis: Redis,
    private readonly defaults: Settings,
    private readonly channel: string,
  ) {
    this.current = { ...defaults };
  }

  get value(): Settings {
    return this.current;
  }

  onChange(listener: (settings: Settings) => void): void {
    this.listeners.push(listener);
  }

  /** Reloads from Postgres (start-up, another node's change, resync). */
  async reload(): Promise<Settings> {
    const stored = (await this.repository.load()) ?? {};
    const merged = mesh.MeshSettings.safeParse({ ...this.defaults, ...stored });
    this.apply(merged.success ? merged.data : { ...this.defaults });
    return this.current;
  }

  async update(patch: Partial<Settings>): Promise<Settings> {
    const next = mesh.MeshSettings.parse({ ...this.current, ...patch });
    const stored = (await this.repository.load()) ?? {};
    await this.repository.save({ ...stored, ...patch });
    this.apply(next);
    await this.redis.publish(this.channel, 'settings|changed').catch(() => undefined);
    return next;
  }

  private apply(next: Settings): void {
    this.current = next;
    for (const listener of this.listeners) listener(next);
  }
}
