/**
 * Mantine palette names for services, in order of first appearance in a trace, so the services of
 * one trace get distinct colours; past the palette they repeat.
 */
export const SERVICE_PALETTE = ['blue', 'teal', 'grape', 'orange', 'cyan', 'lime', 'indigo', 'pink', 'yellow', 'violet', 'green'] as const;
export type ServiceColor = (typeof SERVICE_PALETTE)[number];

export function serviceColors(services: readonly string[]): Map<string, ServiceColor> {
  return new Map(services.map((service, index) => [service, SERVICE_PALETTE[index % SERVICE_PALETTE.length]]));
}
