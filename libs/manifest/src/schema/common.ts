import { z } from 'zod';
import type { NamedPattern } from '../patterns';

/** A string that must match one of spec 1's named patterns (see patterns.ts for the messages). */
export const patterned = (pattern: NamedPattern) => z.string().regex(pattern.regex);

/** RFC 3339 date-time with a time zone (`Z` or `+hh:mm`), as JSON Schema's `date-time`. */
export const dateTime = () => z.iso.datetime({ offset: true });

/** An array whose items must be unique; the JSON Schema says so with `uniqueItems`. */
export const uniqueArray = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .refine((items) => new Set(items).size === items.length, { params: { rule: 'unique' } })
    .meta({ uniqueItems: true });

/** A part of the manifest whose structure spec 1 does not show: any object is accepted. */
export const openObject = () => z.record(z.string(), z.unknown());
