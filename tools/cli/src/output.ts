import { stringify } from 'yaml';

export type OutputFormat = 'json' | 'table' | 'yaml';

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Rows under headers, each column as wide as its widest cell (long cells cut at 60). */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = rows.map((row) => columns.map((column) => cell(column.value(row)).replace(/\s+/g, ' ').slice(0, 60)));
  const widths = columns.map((column, i) => Math.max(column.header.length, ...cells.map((line) => line[i].length)));
  const line = (values: string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(columns.map((column) => column.header.toUpperCase())), ...cells.map(line)].join('\n');
}

/** An object as `key  value` lines. */
export function keyValues(record: Record<string, unknown>): string {
  const width = Math.max(0, ...Object.keys(record).map((key) => key.length));
  return Object.entries(record)
    .map(([key, value]) => `${key.padEnd(width)}  ${cell(value)}`)
    .join('\n');
}

export interface Printer {
  format: OutputFormat;
  /** Data as JSON or YAML; in table mode, `table()` when given, else the object's fields. */
  data(value: unknown, asTable?: () => string): void;
  /** A line for the user (stdout). */
  line(text?: string): void;
  /** A line about the run (stderr), so that stdout stays the data. */
  note(text: string): void;
}

export function printer(format: OutputFormat, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): Printer {
  return {
    format,
    data(value, asTable) {
      if (format === 'json') stdout.write(`${JSON.stringify(value, null, 2)}\n`);
      else if (format === 'yaml') stdout.write(stringify(value));
      else if (asTable) stdout.write(`${asTable()}\n`);
      else if (value && typeof value === 'object' && !Array.isArray(value)) stdout.write(`${keyValues(value as Record<string, unknown>)}\n`);
      else stdout.write(`${cell(value)}\n`);
    },
    line: (text = '') => void stdout.write(`${text}\n`),
    note: (text) => void stderr.write(`${text}\n`),
  };
}
