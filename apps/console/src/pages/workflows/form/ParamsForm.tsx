import { JsonInput, NumberInput, Select, Stack, Switch, Text, Textarea, TextInput } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { READABLE_ERRORS } from '../Lead';
import { paramFields, paramsFromValues, valuesFromParams, type NodeIssue, type ParamField, type ParamValues } from './schema-fields';

/**
 * A node's parameters as a form generated from its component's JSON Schema. Every change is handed
 * up at once (`onChange`), so the canvas always holds what the form shows; JSON that does not parse
 * is marked on its field and left out until it does. The engine's issues for the node sit under the
 * fields they name.
 */
export function ParamsForm({
  nodeId,
  schema,
  params,
  issues,
  readOnly,
  onChange,
}: {
  nodeId: string;
  schema: unknown;
  params: Record<string, unknown>;
  issues: readonly NodeIssue[];
  readOnly?: boolean;
  onChange: (params: Record<string, unknown>) => void;
}) {
  const fields = useMemo(() => paramFields(schema), [schema]);
  const [values, setValues] = useState<ParamValues>(() => valuesFromParams(fields, params));
  const [local, setLocal] = useState<Record<string, string>>({});
  // Another node selected: its own values.
  useEffect(() => {
    setValues(valuesFromParams(fields, params));
    setLocal({});
  }, [nodeId, fields]);

  const set = (name: string, value: ParamValues[string]) => {
    const next = { ...values, [name]: value };
    setValues(next);
    const read = paramsFromValues(fields, next, params);
    setLocal(read.errors);
    onChange(read.params);
  };
  const errorOf = (field: ParamField) =>
    local[field.name] ??
    (issues
      .filter((issue) => issue.field === field.name || issue.field.startsWith(`${field.name}.`) || issue.field.startsWith(`${field.name}[`))
      .map((issue) => issue.message)
      .join('; ') ||
      undefined);

  if (!fields.length)
    return (
      <Text size="sm" c="dimmed">
        This component takes no parameters.
      </Text>
    );
  return (
    <Stack gap="xs" data-testid="params-form" style={READABLE_ERRORS}>
      {fields.map((field) => {
        const common = {
          label: field.label,
          description: field.description,
          withAsterisk: field.required,
          error: errorOf(field),
          disabled: readOnly,
          'data-testid': `param-${field.name}`,
        };
        switch (field.kind) {
          case 'boolean':
            return (
              <Switch key={field.name} {...common} checked={Boolean(values[field.name])} onChange={(event) => set(field.name, event.currentTarget.checked)} />
            );
          case 'enum':
            return (
              <Select
                key={field.name}
                {...common}
                data={field.options}
                clearable={!field.required}
                placeholder={field.default ? `default: ${field.default}` : undefined}
                value={String(values[field.name] ?? '') || null}
                onChange={(value) => set(field.name, value ?? '')}
              />
            );
          case 'number':
            return (
              <NumberInput
                key={field.name}
                {...common}
                allowDecimal={!field.integer}
                min={field.minimum}
                max={field.maximum}
                placeholder={field.default !== undefined ? `default: ${field.default}` : undefined}
                value={values[field.name] as number | string}
                onChange={(value) => set(field.name, value)}
              />
            );
          case 'json':
            // Text is welcome where the schema takes it (a union with string, an open value): no JSON check then.
            return field.acceptsText ? (
              <Textarea
                key={field.name}
                {...common}
                autosize
                minRows={2}
                maxRows={8}
                styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
                placeholder="text, or a JSON value"
                value={String(values[field.name] ?? '')}
                onChange={(event) => set(field.name, event.currentTarget.value)}
              />
            ) : (
              <JsonInput
                key={field.name}
                {...common}
                autosize
                minRows={2}
                maxRows={8}
                placeholder="a JSON value, or a whole {{node.output}}"
                value={String(values[field.name] ?? '')}
                onChange={(value) => set(field.name, value)}
              />
            );
          default:
            return field.multiline ? (
              <Textarea
                key={field.name}
                {...common}
                autosize
                minRows={2}
                maxRows={8}
                maxLength={field.maxLength}
                placeholder={field.default ? `default: ${field.default}` : undefined}
                value={String(values[field.name] ?? '')}
                onChange={(event) => set(field.name, event.currentTarget.value)}
              />
            ) : (
              <TextInput
                key={field.name}
                {...common}
                maxLength={field.maxLength}
                placeholder={field.default ? `default: ${field.default}` : undefined}
                value={String(values[field.name] ?? '')}
                onChange={(event) => set(field.name, event.currentTarget.value)}
              />
            );
        }
      })}
    </Stack>
  );
}
