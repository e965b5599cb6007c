import { BarController, BarElement, CategoryScale, Chart as ChartJs, Legend, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'react';
import { formatNumber } from '../format';
import { TableScroll } from './TableScroll';

// Only the parts in use, so the bundle carries no other chart type.
ChartJs.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

export interface Series {
  label: string;
  values: number[];
  color: string;
}

/** Colors with at least 3:1 contrast on white; each series is also named in the legend and the table. */
export const OUTCOME_COLORS = { accepted: '#1a7f37', failed: '#cf222e', skipped: '#57606a', retried: '#9a6700' } as const;

/**
 * A bar chart (stacked when asked, horizontal for a funnel) drawn by Chart.js, with its numbers
 * in a table under a disclosure: the chart is an image to assistive technology, the table is
 * what it says.
 */
export function BarChart({
  title,
  labels,
  series,
  stacked = false,
  horizontal = false,
  height = 240,
}: {
  title: string;
  labels: string[];
  series: Series[];
  stacked?: boolean;
  horizontal?: boolean;
  height?: number;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const context = canvas.current?.getContext('2d');
    if (!context) return;
    const chart = new ChartJs(context, {
      type: 'bar',
      data: { labels, datasets: series.map((s) => ({ label: s.label, data: s.values, backgroundColor: s.color, borderWidth: 0, maxBarThickness: 48 })) },
      options: {
        indexAxis: horizontal ? 'y' : 'x',
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          // Counts: whole numbers on the value axis, whichever way the bars go.
          x: { stacked, beginAtZero: true, ticks: { color: '#24292f', maxRotation: 0, autoSkipPadding: 12, precision: 0 } },
          y: { stacked, beginAtZero: true, ticks: { color: '#24292f', precision: 0 } },
        },
        plugins: {
          legend: { display: series.length > 1, labels: { color: '#24292f' } },
          tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${formatNumber(Number(item.raw))}` } },
        },
      },
    });
    return () => chart.destroy();
  }, [labels, series, stacked, horizontal]);

  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div className="chart-canvas" style={{ height }}>
        <canvas ref={canvas} role="img" aria-label={`${title} (chart; its numbers are in the table below)`} />
      </div>
      <details>
        <summary>Numbers of “{title}”</summary>
        <TableScroll label={`Numbers of ${title}`}>
          <table>
            <thead>
              <tr>
                <th scope="col">{horizontal ? 'Step' : 'Time'}</th>
                {series.map((s) => (
                  <th scope="col" key={s.label} className="num">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {labels.map((label, i) => (
                <tr key={`${label}-${i}`}>
                  <th scope="row">{label}</th>
                  {series.map((s) => (
                    <td key={s.label} className="num">
                      {formatNumber(s.values[i] ?? 0)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      </details>
    </figure>
  );
}
