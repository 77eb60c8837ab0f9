import jsonata from 'jsonata';
import { ExpressionEvaluationError, type ExpressionEvaluator } from './expression-pool';

type Ast = Record<string, unknown>;

/** Binary operators whose cost is linear in their operands (no `..` range). */
const LINEAR_OPERATORS = new Set(['=', '!=', '<', '<=', '>', '>=', 'and', 'or', '+', '-', '*', '/', '%', '&', 'in']);

/** Built-in functions that take no function, regex or size argument and cost at most linear time and memory in their input. */
const LINEAR_FUNCTIONS = new Set([
  'count',
  'exists',
  'length',
  'contains',
  'number',
  'string',
  'boolean',
  'not',
  'lowercase',
  'uppercase',
  'trim',
  'substring',
  'substringBefore',
  'substringAfter',
  'sum',
  'max',
  'min',
  'average',
  'abs',
  'floor',
  'ceil',
  'round',
  'keys',
  'lookup',
  'type',
  'append',
  'join',
]);

/** Fields of AST nodes the check understands; a node with any other (a group, a focus, an index binding) is not inline. */
const KNOWN_FIELDS = new Set([
  'type',
  'value',
  'name',
  'position',
  'lhs',
  'rhs',
  'expression',
  'expressions',
  'arguments',
  'procedure',
  'condition',
  'then',
  'else',
  'steps',
  'stages',
  'expr',
  'keepArray',
  'consarray',
  'keepSingletonArray',
]);

/**
 * Whether an expression can only take time and memory linear in its input, so it may run on the
 * event loop: paths over the input (one level of filters), literals, comparisons, arithmetic,
 * conditionals and a few built-ins. Anything else (a function of its own and so recursion, `:=`,
 * a range `..`, a regex, `$eval`, `$pad`, sorting, grouping, `$$`) goes to an evaluator process.
 */
export function runsInline(node: unknown, filterDepth = 0): boolean {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return false;
  const ast = node as Ast;
  if (!Object.keys(ast).every((key) => KNOWN_FIELDS.has(key))) return false;
  const all = (children: unknown, depth = filterDepth) => Array.isArray(children) && children.every((child) => runsInline(child, depth));
  switch (ast.type) {
    case 'string':
    case 'number':
    case 'value':
    case 'name':
    case 'wildcard':
      return ast.stages === undefined || all((ast.stages as Ast[]).map((stage) => ({ ...stage, type: `stage:${String(stage.type)}` })));
    case 'stage:filter':
      // A filter inside a filter could walk the input once per item: one level only.
      return filterDepth === 0 && runsInline(ast.expr, filterDepth + 1);
    case 'variable':
      // `$`, the context; not `$$` (the root from inside a filter) nor variables bound by `:=` or lambdas.
      return ast.value === '' && ast.stages === undefined;
    case 'path':
      return all(ast.steps);
    case 'binary':
      return LINEAR_OPERATORS.has(ast.value as string) && runsInline(ast.lhs, filterDepth) && runsInline(ast.rhs, filterDepth);
    case 'unary':
      return (ast.value === '-' && runsInline(ast.expression, filterDepth)) || (ast.value === '[' && all(ast.expressions));
    case 'condition':
      return runsInline(ast.condition, filterDepth) && runsInline(ast.then, filterDepth) && (ast.else === undefined || runsInline(ast.else, filterDepth));
    case 'block':
      return all(ast.expressions);
    case 'function': {
      const procedure = ast.procedure as Ast | undefined;
      return (
        procedure?.type === 'variable' &&
        LINEAR_FUNCTIONS.has(procedure.value as string) &&
        Object.keys(procedure).every((key) => ['type', 'value', 'position'].includes(key)) &&
        all(ast.arguments)
      );
    }
    default:
      return false;
  }
}

interface Parsed {
  expression: ReturnType<typeof jsonata>;
  inline: boolean;
}

/**
 * Largest input (as JSON) an inline expression gets: its cost is linear in the input, times the
 * expression's own size (`t & t & t ...` copies its input once per term), so both stay small.
 */
const INLINE_INPUT_BYTES = 16_384;

/**
 * Condition expressions: those that can only cost linear time in a small input are evaluated here,
 * at about 10 µs each; the rest go to the evaluator processes with their time and memory budget.
 */
export class Expressions implements ExpressionEvaluator {
  private readonly parsed = new Map<string, Parsed>();

  constructor(private readonly budgeted: ExpressionEvaluator) {}

  async evaluate(source: string, input: unknown): Promise<unknown> {
    let parsed = this.parsed.get(source);
    if (!parsed) {
      let expression: ReturnType<typeof jsonata>;
      try {
        expression = jsonata(source);
      } catch (error) {
        throw new ExpressionEvaluationError((error as Error).message);
      }
      parsed = { expression, inline: runsInline(expression.ast()) };
      if (this.parsed.size >= 1000) this.parsed.delete(this.parsed.keys().next().value as string);
      this.parsed.set(source, parsed);
    }
    if (!parsed.inline || (JSON.stringify(input)?.length ?? 0) > INLINE_INPUT_BYTES) return this.budgeted.evaluate(source, input);
    try {
      return await parsed.expression.evaluate(input);
    } catch (error) {
      throw new ExpressionEvaluationError((error as Error).message);
    }
  }
}
