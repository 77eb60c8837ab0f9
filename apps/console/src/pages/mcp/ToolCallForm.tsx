import { Alert, Badge, Button, Code, Group, NumberInput, Select, Stack, Switch, Text, Textarea, TextInput } from '@mantine/core';
import { useMemo, useState } from 'react';
import { ApiErrorAlert } from '../../ui';
import { useToolCall, type ToolCallResponse } from './mcp-api';
import { fieldsOf, initialValues, toArguments, type FormField, type FormValues } from './schema-form';

/** A form generated from the tool's input schema; the call's result is shown under it. */
export function ToolCallForm({ connectionId, tool, schema }: { connectionId: string; tool: string; schema: Record<string, unknown> }) {
  const fields = useMemo(() => fieldsOf(schema), [schema]);
  const [values, setValues] = useState<FormValues>(() => initialValues(fields));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const call = useToolCall(connectionId, tool);
  const set = (path: string, value: string | boolean) => setValues((current) => ({ ...current, [path]: value }));

  return (
    <form
      aria-label={`Call ${tool}`}
      // The schema's rules are checked here and shown at each field, not by the browser's bubbles.
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const result = toArguments(fields, values);
        setErrors(result.errors);
        if (Object.keys(result.errors).length === 0) call.mutate(result.arguments);
      }}
    >
      <Stack gap="xs">
        {fields.length === 0 && (
          <Text size="sm" c="dimmed">
            This tool takes no arguments.
          </Text>
        )}
        {fields.map((field) => (
          <FieldInput key={field.path} field={field} value={values[field.path]} error={errors[field.path]} onChange={(value) => set(field.path, value)} />
        ))}
        <Group>
          <Button type="submit" loading={call.isPending}>
            Call {tool}
          </Button>
        </Group>
        {call.isError && <ApiErrorAlert error={call.error} title="The call failed" />}
        {call.isSuccess && <ToolResult response={call.data} />}
      </Stack>
    </form>
  );
}

function FieldInput({ field, value, error, onChange }: { field: FormField; value: string | boolean | undefined; error?: string; onChange: (value: string | boolean) => void }) {
  const common = { label: field.label, description: field.description, required: field.required, error };
  const text = typeof value === 'string' ? value : '';
  switch (field.kind) {
    case 'boolean':
      return <Switch label={field.label} description={field.description} checked={value === true} onChange={(event) => onChange(event.currentTarget.checked)} error={error} />;
    case 'enum':
      return <Select {...common} data={field.options} value={text || null} onChange={(next) => onChange(next ?? '')} clearable={!field.required} />;
    case 'number':
      return (
        <NumberInput
          {...common}
          value={text}
          min={field.minimum}
          max={field.maximum}
          allowDecimal={!field.integer}
          onChange={(next) => onChange(next === '' ? '' : String(next))}
        />
      );
    case 'json':
      return <Textarea {...common} autosize minRows={3} ff="monospace" placeholder="JSON" value={text} onChange={(event) => onChange(event.currentTarget.value)} />;
    case 'list':
      return <TextInput {...common} placeholder="Values separated by commas" value={text} onChange={(event) => onChange(event.currentTarget.value)} />;
    case 'text':
      return field.multiline ? (
        <Textarea {...common} autosize minRows={1} maxLength={field.maxLength} value={text} onChange={(event) => onChange(event.currentTarget.value)} />
      ) : (
        <TextInput {...common} maxLength={field.maxLength} value={text} onChange={(event) => onChange(event.currentTarget.value)} />
      );
  }
}

type Content = { type?: string; text?: string; mimeType?: string; data?: string; resource?: { uri?: string; text?: string } };

/** What the tool answered: text content as text, anything else as JSON. */
function ToolResult({ response }: { response: ToolCallResponse }) {
  const content = (response.result.content ?? []) as Content[];
  const failed = !response.success || response.result.isError === true;
  return (
    <Alert color={failed ? 'red' : 'teal'} title={failed ? 'The tool reported an error' : 'Result'} role="status">
      <Stack gap={6} data-testid="tool-result">
        <Group gap="xs">
          <Badge variant="light">{Math.round(response.latency)} ms</Badge>
        </Group>
        {content.map((item, index) =>
          item.type === 'text' && typeof item.text === 'string' ? (
            <Text key={index} size="sm" style={{ whiteSpace: 'pre-wrap' }}>
              {item.text}
            </Text>
          ) : item.type === 'image' && item.data && item.mimeType?.startsWith('image/') ? (
            <img key={index} alt={`Image ${index + 1} returned by the tool`} src={`data:${item.mimeType};base64,${item.data}`} style={{ maxWidth: 320 }} />
          ) : (
            <Code key={index} block>
              {JSON.stringify(item, null, 2)}
            </Code>
          ),
        )}
        {response.result.structuredContent !== undefined && (
          <Code block>{JSON.stringify(response.result.structuredContent, null, 2)}</Code>
        )}
      </Stack>
    </Alert>
  );
}
