import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { NodeIssue } from '../form/schema-fields';
import classes from './ComponentNode.module.css';
import type { ComponentNodeData } from './flow-graph';
import { formatDuration, STATE_COLORS, stateBadgeColor, type NodeRunView } from './node-states';

/** A canvas node: the engine node, plus what the page lays onto it (its run state, its validation issues). */
export type ComponentNodeView = ComponentNodeData & { run?: NodeRunView; issues?: NodeIssue[]; editable?: boolean };
export type ComponentFlowNode = Node<ComponentNodeView, 'component'>;

const handleStyle = { width: 12, height: 12, background: 'var(--mantine-color-gray-6)', border: '2px solid white' };
/** `teal.9` → `var(--mantine-color-teal-9)`. */
const cssColor = (color: string) => `var(--mantine-color-${color.replace('.', '-')})`;
/** Text on a badge of `color`: dark on the light shades (orange 5), white on the rest. */
const badgeText = (color: string) => (color.endsWith('.5') ? 'var(--mantine-color-black)' : 'var(--mantine-color-white)');

/**
 * One node of a workflow on the canvas: its type and id, its state as colour and badge, its
 * timing, its errors. Plain elements rather than Mantine components: a large workflow draws
 * hundreds at once.
 */
export const ComponentNode = memo(function ComponentNode({ id, data, selected }: NodeProps<ComponentFlowNode>) {
  const state = data.run?.status;
  const invalid = Boolean(data.issues?.length);
  const color = invalid ? 'red' : state ? STATE_COLORS[state] : 'gray';
  const marked = Boolean(state) || invalid;
  const badge = state ? stateBadgeColor(state) : undefined;
  return (
    <div
      className={`${classes.node} ${marked ? classes.marked : ''} ${selected ? classes.selected : ''}`}
      data-testid={`node-${id}`}
      data-state={state ?? 'none'}
      data-invalid={invalid ? 'true' : 'false'}
      style={marked ? { borderColor: `var(--mantine-color-${color}-6)`, background: state ? `var(--mantine-color-${color}-0)` : undefined } : undefined}
    >
      <Handle type="target" position={Position.Left} style={handleStyle} data-testid={`handle-in-${id}`} />
      <div className={classes.head}>
        <span className={classes.type}>{data.component}</span>
        {state && badge && (
          <span className={classes.badge} style={{ background: cssColor(badge), color: badgeText(badge) }} data-testid={`node-state-${id}`}>
            {state}
          </span>
        )}
      </div>
      <div className={classes.id}>{id}</div>
      {(state === 'running' || state === 'retrying') && data.run?.startedAt && (
        <div className={classes.line}>
          since {new Date(data.run.startedAt).toLocaleTimeString()}
          {data.run.nextAttemptIn !== undefined ? ` · next attempt in ${formatDuration(data.run.nextAttemptIn)}` : ''}
        </div>
      )}
      {data.run && (data.run.duration !== undefined || data.run.attempts > 1) && (
        <div className={classes.line}>
          {formatDuration(data.run.duration)}
          {data.run.attempts > 1 ? ` · ${data.run.attempts} attempts` : ''}
        </div>
      )}
      {data.run?.error?.message && (
        <div className={classes.problem}>
          {data.run.error.code ? `${data.run.error.code}: ` : ''}
          {data.run.error.message}
        </div>
      )}
      {data.issues?.map((issue) => (
        <div key={`${issue.field}:${issue.message}`} className={classes.problem} role="alert" data-testid={`node-issue-${id}`}>
          {issue.field}: {issue.message}
        </div>
      ))}
      {data.component === 'Condition' ? (
        <>
          <Handle
            type="source"
            id="true"
            position={Position.Right}
            style={{ ...handleStyle, top: '35%', background: 'var(--mantine-color-green-7)' }}
            data-testid={`handle-true-${id}`}
          />
          <Handle
            type="source"
            id="false"
            position={Position.Right}
            style={{ ...handleStyle, top: '70%', background: 'var(--mantine-color-red-7)' }}
            data-testid={`handle-false-${id}`}
          />
        </>
      ) : (
        <Handle type="source" position={Position.Right} style={handleStyle} data-testid={`handle-out-${id}`} />
      )}
    </div>
  );
});

export const nodeTypes = { component: ComponentNode };
