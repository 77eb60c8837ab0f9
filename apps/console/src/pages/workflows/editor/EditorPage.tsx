import { Alert, Badge, Box, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { addEdge, ReactFlowProvider, useEdgesState, useNodesState, useReactFlow, type Connection, type Edge } from '@xyflow/react';
import { useCallback, useEffect, useMemo, useState, type DragEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { PlatformError } from '../../../api';
import { ApiErrorAlert, PageHeader, QueryState } from '../../../ui';
import { useComponents, useCreateWorkflow, useExecuteWorkflow, useWorkflow } from '../api/workflows-api';
import { ExecutionHistory } from '../executions/ExecutionHistory';
import { issuesByNode, type NodeIssue } from '../form/schema-fields';
import type { ComponentFlowNode } from '../graph/ComponentNode';
import { canvasToFlow, edgeKey, flowToCanvas, nextNodeId } from '../graph/flow-graph';
import { layoutByDepth } from '../graph/layout';
import { WorkflowCanvas } from '../graph/WorkflowCanvas';
import { Lead, READABLE_ERRORS } from '../Lead';
import { COMPONENT_MIME, Palette } from './Palette';
import { NodeInspector } from './NodeInspector';

/** `/workflows/new` and `/workflows/:workflowId`: the canvas editor (a stored workflow opens in it, and runs from it). */
export function EditorPage() {
  return (
    <ReactFlowProvider>
      <Editor />
    </ReactFlowProvider>
  );
}

function Editor() {
  const { workflowId } = useParams();
  const stored = useWorkflow(workflowId);
  const components = useComponents();
  const navigate = useNavigate();
  const flowApi = useReactFlow();
  const [nodes, setNodes, onNodesChange] = useNodesState<ComponentFlowNode>([]);
  const [edges, setEdges, onEdgesChange] = useEdgesState<Edge>([]);
  const [name, setName] = useState('');
  const [category, setCategory] = useState('console');
  const [selected, setSelected] = useState<string>();
  const [issues, setIssues] = useState<Map<string, NodeIssue[]>>(new Map());
  const [dirty, setDirty] = useState(false);
  const create = useCreateWorkflow();
  const execute = useExecuteWorkflow(workflowId ?? '');

  // A stored workflow: its flow onto the canvas, once.
  useEffect(() => {
    if (!stored.data) return;
    const canvas = flowToCanvas(stored.data.flow);
    setNodes(canvas.nodes);
    setEdges(canvas.edges);
    setName(stored.data.name);
    setCategory(stored.data.category);
    setDirty(false);
    setIssues(new Map());
  }, [stored.data, setNodes, setEdges]);

  const library = components.data?.components ?? [];
  const changed = () => {
    setDirty(true);
    setIssues(new Map());
  };

  const addNode = useCallback(
    (type: string, position?: { x: number; y: number }) => {
      setNodes((current) => {
        const id = nextNodeId(
          type,
          current.map((node) => node.id),
        );
        const at = position ?? { x: 40 + (current.length % 4) * 240, y: 40 + Math.floor(current.length / 4) * 140 };
        setSelected(id);
        return [...current, { id, type: 'component', position: at, data: { component: type, params: {} } }];
      });
      changed();
    },
    [setNodes],
  );

  const onDrop = (event: DragEvent) => {
    const type = event.dataTransfer.getData(COMPONENT_MIME);
    if (!type) return;
    event.preventDefault();
    addNode(type, flowApi.screenToFlowPosition({ x: event.clientX - 100, y: event.clientY - 30 }));
  };

  const onConnect = useCallback(
    (connection: Connection) => {
      setEdges((current) => addEdge({ ...connection, id: edgeKey(connection), data: {} }, current));
      changed();
    },
    [setEdges],
  );

  const save = () => {
    const flow = canvasToFlow(nodes, edges as Parameters<typeof canvasToFlow>[1]);
    create.mutate(
      { name: name.trim() || 'Untitled workflow', category: category.trim() || 'console', description: '', flow },
      {
        onSuccess: (created) => {
          setDirty(false);
          navigate(`/workflows/${created.id}`, { replace: Boolean(workflowId) });
        },
        onError: (error) => setIssues(error instanceof PlatformError ? issuesByNode(error.details) : new Map()),
      },
    );
  };

  const run = () => execute.mutate(undefined, { onSuccess: (accepted) => navigate(`/workflows/${workflowId}/executions/${accepted.executionId}`) });

  const autoLayout = () => {
    const { positions } = layoutByDepth(
      nodes.map((node) => node.id),
      edges,
    );
    setNodes((current) => current.map((node) => ({ ...node, position: positions.get(node.id) ?? node.position })));
    setDirty(true);
    window.requestAnimationFrame(() => void flowApi.fitView({ padding: 0.2 }));
  };

  const shown = useMemo(
    () =>
      nodes.map((node) =>
        issues.has(node.id)
          ? { ...node, data: { ...node.data, issues: issues.get(node.id) } }
          : node.data.issues
            ? { ...node, data: { ...node.data, issues: undefined } }
            : node,
      ),
    [nodes, issues],
  );
  const current = nodes.find((node) => node.id === selected);
  const unplaced = [...issues.entries()].filter(([nodeId]) => !nodeId || !nodes.some((node) => node.id === nodeId));

  if (workflowId && (stored.isPending || stored.isError)) return <QueryState query={stored}>{() => null}</QueryState>;

  return (
    <Stack gap="sm" style={READABLE_ERRORS}>
      <PageHeader
        title={stored.data ? stored.data.name : 'New workflow'}
        description={
          stored.data ? (
            <Lead>
              Stored workflows do not change: edits are saved as a new workflow. <Link to="/workflows">All workflows</Link>
            </Lead>
          ) : (
            <Lead>Drag components onto the canvas, connect their handles, fill in their parameters, then save.</Lead>
          )
        }
        actions={
          <>
            {dirty && (
              <Badge color="yellow.4" autoContrast>
                Unsaved changes
              </Badge>
            )}
            <Button variant="default" onClick={autoLayout} disabled={!nodes.length}>
              Auto-layout
            </Button>
            <Button color="blue.8" onClick={save} loading={create.isPending} disabled={!nodes.length || (Boolean(workflowId) && !dirty)}>
              {workflowId ? 'Save as new workflow' : 'Save'}
            </Button>
            {workflowId && (
              <Button color="teal.9" onClick={run} loading={execute.isPending} disabled={dirty}>
                Run
              </Button>
            )}
          </>
        }
      />
      <Group gap="sm" align="flex-end">
        <TextInput
          label="Name"
          value={name}
          onChange={(event) => (setName(event.currentTarget.value), setDirty(true))}
          w={320}
          maxLength={200}
          placeholder="Untitled workflow"
        />
        <TextInput label="Category" value={category} onChange={(event) => (setCategory(event.currentTarget.value), setDirty(true))} w={200} maxLength={64} />
        <Text size="sm" c="gray.7" pb={6}>
          {nodes.length} nodes · {edges.length} edges
        </Text>
      </Group>
      {create.error && <ApiErrorAlert error={create.error} title={issues.size ? 'The engine refused the workflow: see the marked nodes' : undefined} />}
      {unplaced.map(([nodeId, list]) => (
        <Alert key={nodeId || 'flow'} color="red" title={nodeId ? `Node ${nodeId}` : 'Workflow'}>
          {list.map((issue) => `${issue.field}: ${issue.message}`).join('; ')}
        </Alert>
      ))}
      {execute.error && <ApiErrorAlert error={execute.error} />}
      {components.isError && <ApiErrorAlert error={components.error} />}
      <Group align="stretch" gap="sm" wrap="nowrap" h={560}>
        <Palette components={library} onAdd={(type) => addNode(type)} />
        <Box style={{ flex: 1, border: '1px solid var(--mantine-color-gray-3)', borderRadius: 8, overflow: 'hidden' }}>
          <WorkflowCanvas
            label="Workflow canvas"
            fitOnLoad={Boolean(workflowId)}
            nodes={shown}
            edges={edges}
            onNodesChange={(changes) => {
              onNodesChange(changes);
              if (changes.some((change) => change.type === 'position' || change.type === 'remove')) setDirty(true);
            }}
            onEdgesChange={(changes) => {
              onEdgesChange(changes);
              if (changes.some((change) => change.type === 'remove')) setDirty(true);
            }}
            onConnect={onConnect}
            onSelect={setSelected}
            onDrop={onDrop}
          />
        </Box>
        {current && (
          <NodeInspector
            nodeId={current.id}
            component={library.find((component) => component.type === current.data.component)}
            params={current.data.params}
            issues={issues.get(current.id) ?? []}
            otherIds={nodes.filter((node) => node.id !== current.id).map((node) => node.id)}
            onParams={(params) => {
              setNodes((all) => all.map((node) => (node.id === current.id ? { ...node, data: { ...node.data, params } } : node)));
              changed();
            }}
            onRename={(id) => {
              setNodes((all) => all.map((node) => (node.id === current.id ? { ...node, id } : node)));
              setEdges((all) =>
                all.map((edge) => {
                  const source = edge.source === current.id ? id : edge.source;
                  const target = edge.target === current.id ? id : edge.target;
                  return { ...edge, source, target, id: edge.data?.flowId ? edge.id : edgeKey({ source, target, sourceHandle: edge.sourceHandle }) };
                }),
              );
              setSelected(id);
              changed();
            }}
            onDelete={() => {
              setNodes((all) => all.filter((node) => node.id !== current.id));
              setEdges((all) => all.filter((edge) => edge.source !== current.id && edge.target !== current.id));
              setSelected(undefined);
              changed();
            }}
          />
        )}
      </Group>
      {workflowId && <ExecutionHistory workflowId={workflowId} />}
    </Stack>
  );
}
