import { Box, Text } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef } from 'react';
import { axisTicks, formatDuration } from './axis';
import type { WaterfallLayout, WaterfallRow } from './layout';
import type { ServiceColor } from './service-colors';
import classes from './Waterfall.module.css';

export const ROW_HEIGHT = 28;
/** Indentation stops growing here, so a very deep trace keeps room for its names. */
const MAX_INDENT_DEPTH = 24;

interface Props {
  layout: WaterfallLayout;
  colors: Map<string, ServiceColor>;
  selectedId: string | undefined;
  onSelect: (row: WaterfallRow) => void;
  height: number | string;
}

/**
 * The trace's spans as rows in tree order, each bar on the trace's time axis. Only the rows in view
 * (and a few around) are in the DOM, so a trace of 10,000 spans scrolls like one of ten.
 */
export function Waterfall({ layout, colors, selectedId, onSelect, height }: Props) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: layout.rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const ticks = axisTicks(layout.durationMs);
  const items = virtualizer.getVirtualItems();
  // Enough slots that no two rows in the window share one.
  const slots = Math.max(64, items.length * 2);

  useEffect(() => {
    // For the benchmark: the frame after the first rows of this trace were committed is painted.
    const frame = requestAnimationFrame(() => performance.mark('waterfall-rendered', { detail: layout.rows.length }));
    return () => cancelAnimationFrame(frame);
  }, [layout]);

  return (
    <Box className={classes.frame} data-testid="waterfall" data-row-count={layout.rows.length}>
      <div className={classes.header} aria-hidden="true">
        <div className={classes.nameColumn}>
          <Text size="xs" fw={600} c="gray.8">
            Span
          </Text>
        </div>
        <div className={classes.timeline}>
          {ticks.map((tick) => (
            <span key={tick.ms} className={classes.tick} style={{ left: `${tick.fraction * 100}%` }}>
              {tick.label}
            </span>
          ))}
        </div>
      </div>
      <div ref={scrollRef} className={classes.scroll} style={{ height }} data-testid="waterfall-scroll">
        <div
          role="list"
          aria-label={`Spans of the trace, ${layout.rows.length} in tree order`}
          style={{ height: virtualizer.getTotalSize(), position: 'relative' }}
        >
          {items.map((item) => {
            const row = layout.rows[item.index];
            return (
              <WaterfallRowView
                key={item.index % slots}
                row={row}
                total={layout.rows.length}
                top={item.start}
                color={colors.get(row.service) ?? 'gray'}
                selected={row.span.span_id === selectedId}
                onSelect={onSelect}
              />
            );
          })}
        </div>
      </div>
    </Box>
  );
}

/**
 * One row, in plain elements (no Mantine component: a fast scroll mounts dozens of rows a frame).
 * Rows are keyed by their slot in the window, so scrolling updates the same elements in place.
 */
const WaterfallRowView = memo(function WaterfallRowView({
  row,
  total,
  top,
  color,
  selected,
  onSelect,
}: {
  row: WaterfallRow;
  total: number;
  top: number;
  color: string;
  selected: boolean;
  onSelect: (row: WaterfallRow) => void;
}) {
  const indent = Math.min(row.depth, MAX_INDENT_DEPTH) * 12;
  const label = `${row.span.name}, ${row.service}, ${formatDuration(row.durationMs)}${row.error ? ', error' : ''}`;
  return (
    <div role="listitem" aria-setsize={total} aria-posinset={row.index + 1} className={classes.rowSlot} style={{ transform: `translateY(${top}px)` }}>
      <button
        type="button"
        className={classes.row}
        data-selected={selected || undefined}
        data-error={row.error || undefined}
        data-testid="waterfall-row"
        data-span-id={row.span.span_id}
        data-service={row.service}
        aria-pressed={selected}
        aria-label={label}
        onClick={() => onSelect(row)}
      >
        <span className={classes.nameColumn}>
          <span className={classes.nameLine} style={{ paddingLeft: indent }}>
            <span className={classes.swatch} style={{ background: `var(--mantine-color-${color}-6)` }} />
            <span className={classes.service}>{row.service}</span>
            <span className={classes.name}>{row.span.name}</span>
            {row.error && <span className={classes.errorMark}>error</span>}
          </span>
        </span>
        <span className={classes.timeline}>
          <span
            className={classes.bar}
            data-error={row.error || undefined}
            style={{
              left: `${row.offset * 100}%`,
              width: `max(2px, ${row.width * 100}%)`,
              background: `var(--mantine-color-${row.error ? 'red-7' : `${color}-5`})`,
            }}
          />
          <span
            className={classes.duration}
            style={row.offset > 0.8 ? { right: `${(1 - row.offset) * 100 + 0.5}%` } : { left: `calc(${(row.offset + row.width) * 100}% + 4px)` }}
          >
            {formatDuration(row.durationMs)}
            {row.clamped ? ' (clock skew)' : ''}
          </span>
        </span>
      </button>
    </div>
  );
});
