/**
 * A bar chart drawn in the page as inline SVG (no library: bars, a baseline and the largest value are all it
 * needs). The SVG is hidden from assistive technology; the same figures follow in a table, visually hidden
 * unless `showTable`, so screen readers and axe get the data as text.
 */
export interface Bar {
  label: string;
  /** null: nothing known for this label (a day without a storage sample): no bar, "—" in the table. */
  value: number | null;
}

interface Props {
  id: string;
  title: string;
  bars: Bar[];
  /** How a value reads (bytes, counts). */
  format(v: number): string;
  valueHeading: string;
  labelHeading: string;
  showTable?: boolean;
  /** Horizontal bars with their labels (top senders); else vertical bars over time. */
  horizontal?: boolean;
}

const W = 600;
const H = 200;
/** Label column of horizontal bars, in the chart's own units (the SVG scales with the page). */
const LABEL_W = 210;

export function BarChart({ id, title, bars, format, valueHeading, labelHeading, showTable, horizontal }: Props) {
  const max = Math.max(1, ...bars.map((b) => b.value ?? 0));
  const rowH = 32;
  const height = horizontal ? Math.max(rowH, bars.length * rowH) : H;
  const drawn = bars.filter((b) => (b.value ?? 0) > 0).length;
  return (
    <figure class="chart" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <svg
        class={horizontal ? 'chart-svg horizontal' : 'chart-svg'}
        viewBox={`0 0 ${W} ${height + 24}`}
        role="presentation"
        aria-hidden="true"
        focusable="false"
        data-bars={drawn}
      >
        {horizontal
          ? bars.map((b, i) => {
              const v = b.value ?? 0;
              const w = Math.max(v > 0 ? 2 : 0, Math.round((v / max) * (W - LABEL_W - 110)));
              return (
                <g key={b.label}>
                  <text x={0} y={i * rowH + 22} class="chart-label">
                    {b.label.length > 16 ? `${b.label.slice(0, 15)}…` : b.label}
                  </text>
                  <rect class="bar" x={LABEL_W} y={i * rowH + 6} width={w} height={rowH - 12} rx={2} />
                  <text x={LABEL_W + 6 + w} y={i * rowH + 22} class="chart-value">
                    {format(v)}
                  </text>
                </g>
              );
            })
          : bars.map((b, i) => {
              const slot = W / Math.max(1, bars.length);
              const v = b.value ?? 0;
              const h = v > 0 ? Math.max(2, Math.round((v / max) * (H - 30))) : 0;
              return h > 0 ? (
                <rect
                  key={b.label}
                  class="bar"
                  x={i * slot + slot * 0.15}
                  y={H - h}
                  width={slot * 0.7}
                  height={h}
                  rx={1}
                />
              ) : null;
            })}
        {!horizontal && (
          <>
            <line x1={0} x2={W} y1={H} y2={H} class="axis" />
            <text x={0} y={18} class="chart-value">
              {format(max)}
            </text>
            <text x={0} y={H + 22} class="chart-label">
              {bars[0]?.label ?? ''}
            </text>
            <text x={W} y={H + 22} class="chart-label" text-anchor="end">
              {bars[bars.length - 1]?.label ?? ''}
            </text>
          </>
        )}
      </svg>
      <div class={showTable ? 'table-wrap' : 'visually-hidden'}>
        <table class="list chart-data">
          <caption class="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">{labelHeading}</th>
              <th scope="col">{valueHeading}</th>
            </tr>
          </thead>
          <tbody>
            {bars.map((b) => (
              <tr key={b.label}>
                <th scope="row">{b.label}</th>
                <td>{b.value === null ? '—' : format(b.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
