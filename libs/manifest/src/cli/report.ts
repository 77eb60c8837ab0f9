import type { ManifestIssue } from '../issues';
import type { ManifestValidationResult } from '../validate';

/** One input's outcome: validated, or not readable at all. */
export type FileReport = { file: string; result: ManifestValidationResult } | { file: string; readError: string };

export interface Style {
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  dim(text: string): string;
}

const ansi = (code: number) => (text: string) => `\u001b[${code}m${text}\u001b[0m`;
export const COLOURS: Style = { red: ansi(31), yellow: ansi(33), green: ansi(32), dim: ansi(2) };
export const PLAIN: Style = { red: (t) => t, yellow: (t) => t, green: (t) => t, dim: (t) => t };

export function passed(report: FileReport, strict: boolean): boolean {
  if ('readError' in report) return false;
  return report.result.valid && (!strict || report.result.warnings.length === 0);
}

export function textReport(reports: readonly FileReport[], options: { strict: boolean; quiet: boolean; style: Style }): string {
  const { style } = options;
  const lines: string[] = [];
  let errors = 0;
  let warnings = 0;
  for (const report of reports) {
    if ('readError' in report) {
      errors++;
      lines.push(`${style.red('✗')} ${report.file}`, `    ${style.red('error')}    ${report.readError}`);
      continue;
    }
    const { result } = report;
    errors += result.errors.length;
    warnings += result.warnings.length;
    const clean = result.errors.length === 0 && result.warnings.length === 0;
    if (options.quiet && clean) continue;
    const mark = passed(report, options.strict) ? style.green('✓') : style.red('✗');
    lines.push(`${mark} ${report.file} ${style.dim(`(${result.format}, schema ${result.schemaVersion})`)}`);
    for (const issue of result.errors) lines.push(issueLine(style.red('error  '), issue, style));
    for (const issue of result.warnings) lines.push(issueLine(style.yellow('warning'), issue, style));
  }
  const failed = reports.filter((r) => !passed(r, options.strict)).length;
  const summary =
    `${reports.length} file${reports.length === 1 ? '' : 's'}: ${reports.length - failed} valid, ${failed} invalid; ` +
    `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
  lines.push('', failed ? style.red(summary) : style.green(summary));
  return `${lines.join('\n')}\n`;
}

function issueLine(severity: string, issue: ManifestIssue, style: Style): string {
  return `    ${severity}  ${issue.path}  ${issue.message} ${style.dim(`[${issue.code}]`)}`;
}

export function jsonReport(reports: readonly FileReport[], strict: boolean): string {
  const files = reports.map((report) => {
    if ('readError' in report) return { file: report.file, valid: false, readError: report.readError };
    const { manifest: _manifest, ...result } = report.result;
    return { file: report.file, ...result };
  });
  return `${JSON.stringify({ valid: reports.every((r) => passed(r, strict)), files }, null, 2)}\n`;
}
