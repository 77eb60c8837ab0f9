import '@xyflow/react/dist/style.css';
import { Background, Controls, ReactFlow, useNodesInitialized, type Edge, type OnConnect, type OnEdgesChange, type OnNodesChange } from '@xyflow/react';
import { useEffect, type DragEvent } from 'react';
import { nodeTypes, type ComponentFlowNode } from './ComponentNode';

/** `performance.mark` set once every node of a canvas has been drawn and measured (the canvas bench reads it). */
export const CANVAS_RENDERED_MARK = 'workflow-canvas-rendered';

function RenderedMark({ count }: { count: number }) {
  const initialized = useNodesInitialized();
  useEffect(() => {
    if (initialized && count > 0 && performance.getEntriesByName(CANVAS_RENDERED_MARK).length === 0)
      performance.mark(CANVAS_RENDERED_MARK, { detail: { nodes: count } });
  }, [initialized, count]);
  return null;
}

/** The workflow canvas of the editor and of a run's view: component nodes, edges, zoom controls. */
export function WorkflowCanvas({
  nodes,
  edges,
  readOnly,
  onNodesChange,
  onEdgesChange,
  onConnect,
  onSelect,
  onDrop,
  label,
  fitOnLoad = true,
}: {
  nodes: ComponentFlowNode[];
  edges: Edge[];
  readOnly?: boolean;
  onNodesChange?: OnNodesChange<ComponentFlowNode>;
  onEdgesChange?: OnEdgesChange;
  onConnect?: OnConnect;
  onSelect?: (nodeId: string | undefined) => void;
  onDrop?: (event: DragEvent) => void;
  label: string;
  /** Zoom to the graph once its nodes are drawn (a stored flow); a new, empty one keeps the canvas as it is, so drops land where they are made. */
  fitOnLoad?: boolean;
}) {
  return (
    <div
      style={{ width: '100%', height: '100%' }}
      role="region"
      aria-label={label}
      data-testid="workflow-canvas"
      onDragOver={(event) => {
        if (!readOnly) {
          event.preventDefault();
          event.dataTransfer.dropEffect = 'move';
        }
      }}
      onDrop={onDrop}
    >
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        onNodeClick={(_event, node) => onSelect?.(node.id)}
        onPaneClick={() => onSelect?.(undefined)}
        nodesDraggable={!readOnly}
        nodesConnectable={!readOnly}
        edgesReconnectable={!readOnly}
        deleteKeyCode={readOnly ? null : ['Backspace', 'Delete']}
        fitView={fitOnLoad}
        fitViewOptions={{ padding: 0.2, maxZoom: 1.2 }}
        minZoom={0.1}
        proOptions={{ hideAttribution: true }}
        defaultEdgeOptions={{ style: { strokeWidth: 2 } }}
      >
        <Background gap={20} />
        <Controls showInteractive={false} />
        <RenderedMark count={nodes.length} />
      </ReactFlow>
    </div>
  );
}
