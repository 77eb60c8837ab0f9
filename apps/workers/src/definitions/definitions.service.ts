import { workers } from '@platform/contracts';
import { badRequest, conflict, notFound, payloadTooLarge, serviceUnavailable } from '@platform/http';
import { activeTraceId } from '@platform/telemetry';
import { definitionRule, registerRule, startRule, runRule, type Caller } from '../access';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { ControlRepository } from '../control/control.repository';
import type { EngineRepository } from '../engine/engine.repository';
import type { StepDispatcher } from '../engine/step-queue';
import { runView } from '../runs/runs.view';
import { stepsHash } from './canonical';
import { checkDefinition, type DefinitionIssue } from './dag-check';
import type { DefinitionsRepository } from './definitions.repository';

export interface DefinitionsConfig {
  maxSteps: number;
  maxDefinitionBytes: number;
  datasources: readonly string[];
  meshRouting: boolean;
  definitionsDir?: string;
}

const MAX_FILES = 500;
const MAX_DEPTH = 32;
const MAX_FILE_BYTES = 1024 * 1024;

/** Definitions (validated, versioned by name, pinned, reloaded from files) and starting runs. */
export class DefinitionsService {
  constructor(
    private readonly definitions: DefinitionsRepository,
    private readonly engine: EngineRepository,
    private readonly dispatcher: StepDispatcher,
    private readonly control: ControlRepository,
    private readonly config: DefinitionsConfig,
  ) {}

  /** The definition's problems, or none. */
  check(steps: workers.StepDefinition[]): DefinitionIssue[] {
    return checkDefinition(steps, { maxSteps: this.config.maxSteps, datasources: this.config.datasources, meshRouting: this.config.meshRouting });
  }

  /**
   * Registers the posted steps as a version of `name` (an identical list is the same version) and
   * starts a run of the pinned version, or else of the posted (or latest) one. Adding a version to
   * a name and running it both change it: the owner of the name, an editor of its team or
   * `workers:admin` (a viewer of the team gets 403, anyone else 404). The run is the caller's,
   * shared with the posted team or else the definition's.
   */
  async start(body: workers.StartWorkflowBody, caller: Caller) {
    if (depthOf(body) > MAX_DEPTH)
      throw badRequest(`The request is nested deeper than ${MAX_DEPTH} levels`, {
        issues: [{ path: 'body', message: `at most ${MAX_DEPTH} levels of nesting` }],
      });
    if (holdsNul(body))
      throw badRequest('The request holds a NUL character (\\u0000), which cannot be stored', { issues: [{ path: 'body', message: 'no NUL characters' }] });
    if ((await this.control.paused()).paused) throw serviceUnavailable('The workers service is paused and accepts no new workflows (POST /api/v1/resume)');
    // 403 before anything is stored when the caller may not share with the posted team.
    const { owner, team } = runRule.ownerFor(caller, body.team);
    let posted;
    if (body.steps) {
      if (Buffer.byteLength(JSON.stringify(body.steps)) > this.config.maxDefinitionBytes) {
        throw payloadTooLarge(`The step list is larger than WORKERS_MAX_DEFINITION_BYTES (${this.config.maxDefinitionBytes} bytes)`);
      }
      const issues = this.check(body.steps);
      if (issues.length > 0)
        throw badRequest(`The workflow definition is invalid: ${issues[0]!.message}`, {
          issues: issues.map((issue) => ({ ...issue, path: `body.${issue.path}` })),
        });
      const registrant = { owner, team, by: caller.sub };
      posted = (
        await this.definitions.register(body.name, stepsHash(body.steps), body.steps, 'api', registrant, (name) =>
          registerRule.writable(caller, name, body.name),
        )
      ).row;
    }
    const pin = await this.definitions.pinOf(body.name);
    const definition = startRule.writable(
      caller,
      pin ? await this.definitions.find(body.name, pin.version) : (posted ?? (await this.definitions.latest(body.name))),
      body.name,
    );
    const steps = definition.steps as workers.StepDefinition[];
    const { run, jobs } = await this.engine.createRun({
      definitionId: definition.id,
      name: definition.name,
      version: definition.version,
      steps,
      runInput: body.input ?? {},
      traceId: currentTraceId(),
      createdBy: caller.sub,
      owner,
      team: team ?? definition.team,
    });
    try {
      await this.dispatcher.dispatch(jobs, { newRun: true });
    } catch (error) {
      // Nothing ran: the run ends failed, and the caller hears of the outage (503) rather than of a
      // run that would start whenever Redis came back.
      if (await this.engine.abandon(run.id, 'not started: Redis (cache) did not take its first steps')) throw error;
    }
    return { ...runView(run), pinned: Boolean(pin), steps: steps.length };
  }

  /**
   * Pins the version new runs of a definition use. `workflowId` is the definition's name, or the
   * id of one of its runs.
   */
  async pin(workflowId: string, version: number, caller: Caller) {
    const name = await this.nameOf(workflowId);
    definitionRule.writable(caller, await this.definitions.ownerOf(name), workflowId);
    if (!(await this.definitions.find(name, version))) throw notFound(`${name} has no version ${version}`);
    const pin = await this.definitions.pin(name, version, caller.sub);
    return { name: pin.name, version: pin.version, pinned_at: pin.pinnedAt.toISOString() };
  }

  private async nameOf(workflowId: string): Promise<string> {
    if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(workflowId)) {
      const run = await this.engine.runName(workflowId);
      if (run) return run;
    }
    if (!workers.WorkflowName.safeParse(workflowId).success) throw badRequest('workflow_id is neither a definition name nor a run id');
    if (!(await this.definitions.latest(workflowId))) throw notFound(`No definition or run ${workflowId}`);
    return workflowId;
  }

  async versions(name: string | undefined, caller: Caller, limit: number, offset: number) {
    const { rows, total, pins } = await this.definitions.versions(name, definitionRule.readScope(caller), limit, offset);
    const items = rows.map((row) => ({
      name: row.name,
      version: row.version,
      hash: row.hash,
      steps: Array.isArray(row.steps) ? row.steps.length : 0,
      source: row.source,
      pinned: pins.get(row.name) === row.version,
      created_at: row.createdAt.toISOString(),
      owner: row.owner,
      team: row.team,
    }));
    return { items, total, limit, offset };
  }

  /**
   * Reloads every `.yaml`, `.yml` and `.json` file of WORKERS_DEFINITIONS_DIR: all of them are
   * registered, or, when one file is bad, none, with each bad file's errors.
   */
  async reload(caller: Caller) {
    const directory = this.config.definitionsDir;
    if (!directory) throw conflict('WORKERS_DEFINITIONS_DIR is not set: there is no directory to reload');
    let names: string[];
    try {
      names = (await readdir(directory)).filter((file) => /\.(ya?ml|json)$/i.test(file)).sort();
    } catch (error) {
      throw conflict(`WORKERS_DEFINITIONS_DIR cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    if (names.length > MAX_FILES) throw badRequest(`WORKERS_DEFINITIONS_DIR holds more than ${MAX_FILES} definition files`);
    const files: Array<{ file: string; errors: string[] }> = [];
    const valid: Array<{ file: string; name: string; steps: workers.StepDefinition[]; team?: string }> = [];
    const seen = new Map<string, string>();
    for (const file of names) {
      const errors: string[] = [];
      const definitions = await this.readFile(path.join(directory, file), errors);
      for (const [i, definition] of definitions.entries()) {
        const parsed = workers.WorkflowDefinition.safeParse(definition);
        const where = definitions.length > 1 ? `[${i}] ` : '';
        if (!parsed.success) {
          for (const issue of parsed.error.issues) errors.push(`${where}${issue.path.join('.') || '(root)'}: ${issue.message}`);
          continue;
        }
        if (depthOf(parsed.data) > MAX_DEPTH) {
          errors.push(`${where}nested deeper than ${MAX_DEPTH} levels`);
          continue;
        }
        if (holdsNul(parsed.data)) errors.push(`${where}holds a NUL character`);
        const issues = this.check(parsed.data.steps);
        for (const issue of issues) errors.push(`${where}${issue.path}: ${issue.message}`);
        if (Buffer.byteLength(JSON.stringify(parsed.data.steps)) > this.config.maxDefinitionBytes)
          errors.push(`${where}steps: larger than WORKERS_MAX_DEFINITION_BYTES`);
        const other = seen.get(parsed.data.name);
        if (other) errors.push(`${where}name: ${parsed.data.name} is also defined in ${other}`);
        seen.set(parsed.data.name, file);
        if (errors.length === 0) valid.push({ file, name: parsed.data.name, steps: parsed.data.steps, team: parsed.data.team });
      }
      if (errors.length > 0) files.push({ file, errors });
    }
    if (files.length > 0) throw badRequest(`${files.length} definition file(s) are invalid; nothing was reloaded`, { files });
    // New names belong to the operator who reloads, shared with the file's `team` (403 unless they may
    // share with it); a name that exists changes only if they may change it. All or nothing.
    const items = valid.map((item) => ({
      name: item.name,
      hash: stepsHash(item.steps),
      steps: item.steps,
      source: `file:${item.file}`,
      registrant: { ...definitionRule.ownerFor(caller, item.team), by: caller.sub },
    }));
    const results = await this.definitions.registerAll(items, (name, owned) => definitionRule.writable(caller, owned, name));
    return {
      directory,
      loaded: results.map((result, i) => ({ file: valid[i]!.file, name: result.row.name, version: result.row.version, created: result.created })),
    };
  }

  private async readFile(file: string, errors: string[]): Promise<unknown[]> {
    try {
      const text = await readFile(file, 'utf8');
      if (Buffer.byteLength(text) > MAX_FILE_BYTES) {
        errors.push(`larger than ${MAX_FILE_BYTES} bytes`);
        return [];
      }
      const content: unknown = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100 });
      if (Array.isArray(content)) return content;
      if (content && typeof content === 'object' && Array.isArray((content as { workflows?: unknown }).workflows))
        return (content as { workflows: unknown[] }).workflows;
      return [content];
    } catch (error) {
      errors.push(`cannot be parsed: ${(error as Error).message.split('\n')[0]}`);
      return [];
    }
  }
}

/** How deeply a JSON value nests, without recursion (a hostile body may nest a million levels). */
export function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    deepest = Math.max(deepest, depth);
    if (deepest > 1000) return deepest;
    if (item && typeof item === 'object') for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Whether a JSON value holds U+0000 in a string or key (Postgres text and jsonb refuse it). */
export function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value && typeof value === 'object') return Object.entries(value).some(([key, item]) => key.includes('\u0000') || holdsNul(item));
  return false;
}

/** The OpenTelemetry trace id of the request, or a new one when tracing is off. */
function currentTraceId(): string {
  return activeTraceId() ?? randomBytes(16).toString('hex');
}
