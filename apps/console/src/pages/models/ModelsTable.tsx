import { Badge, Text } from '@mantine/core';
import type { localModels } from '@platform/contracts';
import { DataTable, QueryState, type Column } from '../../ui';
import { useModels, usePrices } from './models-api';

const bytes = (size: number) => (size >= 1e9 ? `${(size / 1e9).toFixed(1)} GB` : size >= 1e6 ? `${(size / 1e6).toFixed(0)} MB` : `${size.toLocaleString()} B`);

export function ModelsTable() {
  const models = useModels();
  const prices = usePrices();
  const priceOf = (name: string) => prices.data?.models.find((model) => model.name === name)?.pricePer1kTokens;
  const columns: Column<localModels.ModelSummary>[] = [
    { key: 'name', header: 'Model', render: (model) => <Text fw={500}>{model.name}</Text> },
    {
      key: 'backend',
      header: 'Backend',
      render: (model) => (
        <Badge variant="light" color={model.backend === 'embedded' ? 'grape' : 'blue'}>
          {model.backend}
        </Badge>
      ),
    },
    { key: 'family', header: 'Family', render: (model) => model.details.family || '—' },
    { key: 'params', header: 'Parameters', render: (model) => model.details.parameter_size || '—' },
    { key: 'quant', header: 'Quantization', render: (model) => model.details.quantization_level || '—' },
    { key: 'size', header: 'Size', render: (model) => bytes(model.size) },
    {
      key: 'price',
      header: 'Price / 1k tokens (in · out)',
      render: (model) => {
        const price = priceOf(model.name);
        return price ? `$${price.input} · $${price.output}` : '—';
      },
    },
  ];
  return (
    <QueryState query={models}>
      {(data) => <DataTable rows={data.models} columns={columns} rowKey={(model) => model.name} empty="No model is available." />}
    </QueryState>
  );
}
