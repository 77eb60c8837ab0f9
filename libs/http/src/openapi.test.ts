import { z } from 'zod';
import type { OperationSpec } from './api-router';
import { buildOpenApiDocument } from './openapi';

const Tag = z.object({ name: z.string(), weight: z.number().default(1) }).meta({ id: 'Tag' });
interface Node {
  label: string;
  children: Node[];
}
const Tree: z.ZodType<Node> = z.lazy(() => z.object({ label: z.string(), children: z.array(Tree) })).meta({ id: 'Tree' });

const operations: OperationSpec[] = [
  {
    method: 'post',
    path: '/tags',
    summary: 'Create a tag',
    access: { permission: 'tags:write' },
    body: Tag,
    responses: { 201: { description: 'Created', schema: Tag } },
  },
  {
    method: 'get',
    path: '/trees/:id',
    summary: 'A tree',
    access: 'public',
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'The tree', schema: z.object({ tree: Tree, tags: z.array(Tag) }) } },
  },
] as OperationSpec[];

type Json = Record<string, unknown>;
const refsOf = (node: unknown): string[] =>
  Array.isArray(node)
    ? node.flatMap(refsOf)
    : node && typeof node === 'object'
      ? Object.entries(node).flatMap(([key, value]) => (key === '$ref' && typeof value === 'string' ? [value] : refsOf(value)))
      : [];
const resolve = (document: Json, ref: string) =>
  ref
    .slice(2)
    .split('/')
    .reduce<unknown>((at, part) => (at as Json | undefined)?.[part], document);

describe('buildOpenApiDocument', () => {
  // Two base paths, as a service that serves its routes under `/api/v1` and `/` does.
  const document = buildOpenApiDocument({ title: 'Test', version: '1.0.0' }, [
    { basePath: '/api/v1', operations },
    { basePath: '', operations },
  ]) as Json;

  it('names shared schemas in components, so that every $ref resolves against the document root', () => {
    expect(JSON.stringify(document)).not.toContain('$defs');
    const refs = refsOf(document);
    expect(refs).toEqual(expect.arrayContaining(['#/components/schemas/Tag', '#/components/schemas/Tree']));
    for (const ref of refs) expect([ref, resolve(document, ref)]).toEqual([ref, expect.any(Object)]);
    const schemas = (document.components as Json).schemas as Json;
    expect((schemas.Tree as Json).properties).toMatchObject({ children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } });
  });

  it('keeps an input and an output view of one named type apart', () => {
    const schemas = (document.components as Json).schemas as Record<string, Json>;
    const views = Object.entries(schemas).filter(([name]) => /^Tag\d*$/.test(name));
    expect(views).toHaveLength(2);
    expect(views.map(([, schema]) => schema.required)).toEqual(expect.arrayContaining([['name'], ['name', 'weight']]));
  });

  it('gives every operation an id of its own, also for a route mounted twice', () => {
    const ids = Object.values(document.paths as Record<string, Record<string, Json>>).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
    expect(ids).toEqual(expect.arrayContaining(['postTags', 'getTreesId']));
  });
});

describe('the Error component', () => {
  it('is the error shape itself, never a pointer to itself', () => {
    const document = buildOpenApiDocument({ title: 'Test', version: '1.0.0' }, [{ basePath: '', operations }]) as Json;
    const error = ((document.components as Json).schemas as Json).Error as Json;
    expect(error.$ref).toBeUndefined();
    expect(error).toMatchObject({ type: 'object', properties: { error: expect.any(Object) } });
  });
});
